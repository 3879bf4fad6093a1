// Unit tests for the reference interpreter (ir/Interpreter.h) on hand-built
// tensor IR: the semantics every compiled kernel is later compared against.
#include <doctest/doctest.h>

#include "ir/Diagnostics.h"
#include "ir/Interpreter.h"
#include "ir/InterpreterValue.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

using namespace tk::ir;

namespace {

Expr sym(const std::string &n) { return var(n, VarKind::Symbol); }
Expr idx(const std::string &n) { return var(n, VarKind::Index); }
IndexVar iv(const std::string &n, Expr extent) { return IndexVar{n, std::move(extent), {}}; }

TensorPtr tensor(const std::string &name, ScalarType t, std::vector<Expr> shape, TensorRole role) {
  auto d = std::make_shared<TensorDecl>();
  d->name = name;
  d->dtype = t;
  d->shape = std::move(shape);
  d->role = role;
  return d;
}

Param tensorParam(const TensorPtr &t) { return Param{t->name, t->dtype, t, {}}; }
Param scalarParam(const std::string &n, ScalarType t) { return Param{n, t, nullptr, {}}; }

// op matmul(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] where K >= 1
Op matmulOp() {
  Op op;
  op.name = "matmul";
  auto A = tensor("A", ScalarType::F32, {sym("M"), sym("K")}, TensorRole::Input);
  auto B = tensor("B", ScalarType::F32, {sym("K"), sym("N")}, TensorRole::Input);
  auto C = tensor("C", ScalarType::F32, {sym("M"), sym("N")}, TensorRole::Output);
  op.inputs = {tensorParam(A), tensorParam(B)};
  op.outputs = {C};
  op.symbols = {"M", "K", "N"};
  op.where = {Constraint{binary(BinOp::GE, sym("K"), intImm(1)), {}}};
  Expr body = binary(BinOp::Mul, load(A, {idx("i"), idx("k")}), load(B, {idx("k"), idx("j")}));
  op.body = {Assign{C, {iv("i", sym("M")), iv("j", sym("N"))},
                    reduce(ReduceOp::Sum, {iv("k", sym("K"))}, body), {}}};
  return op;
}

// op unary(X: f32[N]) -> Y: <t>[N] with Y[i] = value(X[i])
Op unaryOp(ScalarType outType, const std::function<Expr(Expr)> &value, ScalarType inType = ScalarType::F32) {
  Op op;
  auto X = tensor("X", inType, {sym("N")}, TensorRole::Input);
  auto Y = tensor("Y", outType, {sym("N")}, TensorRole::Output);
  op.inputs = {tensorParam(X)};
  op.outputs = {Y};
  op.symbols = {"N"};
  op.body = {Assign{Y, {iv("i", sym("N"))}, value(load(X, {idx("i")})), {}}};
  return op;
}

std::vector<double> runUnary(const Op &op, std::vector<double> x) {
  InterpArgs args;
  args.symbols["N"] = static_cast<int64_t>(x.size());
  args.tensors["X"] = std::move(x);
  InterpResult r = interpret(op, args);
  REQUIRE(r.status == 0);
  return r.tensors.at("Y");
}

} // namespace

TEST_CASE("interp: matmul values, shapes and error bound") {
  Op op = matmulOp();
  InterpArgs args;
  args.symbols = {{"M", 2}, {"K", 3}, {"N", 2}};
  args.tensors["A"] = {1, 2, 3, 4, 5, 6};
  args.tensors["B"] = {1, -1, 2, -2, 3, -3};
  InterpResult r = interpret(op, args);
  REQUIRE(r.status == 0);
  CHECK(r.shapes.at("C") == std::vector<int64_t>{2, 2});
  CHECK(r.tensors.at("C") == std::vector<double>{14, -14, 32, -32});
  // Three exactly representable products: the bound is n*u*sum|terms| plus
  // the products' own roundings, so it is positive but tiny.
  double bound = r.errorBounds.at("C")[0];
  CHECK(bound > 0);
  CHECK(bound < 1e-5);
}

TEST_CASE("interp: where constraint failure is status 1 and computes nothing") {
  Op op = matmulOp();
  InterpArgs args;
  args.symbols = {{"M", 2}, {"K", 0}, {"N", 2}};
  InterpResult r = interpret(op, args);
  CHECK(r.status == 1);
  CHECK(r.failedWhere == 0);
  CHECK(r.tensors.empty());
  CHECK(r.message.find("K >= 1") != std::string::npos);
}

TEST_CASE("interp: computeShapes needs no data and reports negative extents") {
  // op conv1d(X: f32[W], F: f32[R], stride: i64) -> Y: f32[(W - R) / stride + 1]
  Op op;
  auto X = tensor("X", ScalarType::F32, {sym("W")}, TensorRole::Input);
  auto F = tensor("F", ScalarType::F32, {sym("R")}, TensorRole::Input);
  Expr outW = add(floorDiv(sub(sym("W"), sym("R")), sym("stride")), intImm(1));
  auto Y = tensor("Y", ScalarType::F32, {outW}, TensorRole::Output);
  op.inputs = {tensorParam(X), tensorParam(F), scalarParam("stride", ScalarType::I64)};
  op.outputs = {Y};
  op.symbols = {"W", "R"};
  InterpArgs args;
  args.symbols = {{"W", 10}, {"R", 3}};
  args.scalars = {{"stride", 2}};
  InterpResult ok = computeShapes(op, args);
  REQUIRE(ok.status == 0);
  CHECK(ok.shapes.at("Y") == std::vector<int64_t>{4});
  CHECK(ok.shapes.at("X") == std::vector<int64_t>{10});

  args.symbols["R"] = 13; // (10 - 13) / 2 + 1 = floor(-1.5) + 1 = -1
  InterpResult bad = computeShapes(op, args);
  CHECK(bad.status == 1);
  CHECK(bad.failedWhere == -1);
  CHECK(bad.shapes.at("Y") == std::vector<int64_t>{-1});

  args.symbols = {{"W", -1}, {"R", 3}}; // a negative symbol fails before anything else
  InterpResult negative = computeShapes(op, args);
  CHECK(negative.status == 1);
  CHECK(negative.message.find("symbol W") != std::string::npos);

  args.symbols.erase("W");
  CHECK_THROWS_AS(computeShapes(op, args), std::invalid_argument);
}

TEST_CASE("interp: integer division and modulo round toward negative infinity") {
  auto f = [](BinOp o) {
    return unaryOp(ScalarType::I64, [o](Expr x) { return binary(o, x, intImm(3)); }, ScalarType::I64);
  };
  CHECK(runUnary(f(BinOp::Div), {-7, 7, -6}) == std::vector<double>{-3, 2, -2});
  CHECK(runUnary(f(BinOp::Mod), {-7, 7, -6}) == std::vector<double>{2, 1, 0});
  CHECK(runUnary(f(BinOp::CDiv), {-7, 7, -6}) == std::vector<double>{-2, 3, -2});
  Op byZero = unaryOp(ScalarType::I64, [](Expr x) { return binary(BinOp::Div, intImm(1), x); }, ScalarType::I64);
  CHECK_THROWS_AS(runUnary(byZero, {0}), std::domain_error);
}

TEST_CASE("interp: casts truncate, wrap and round to the target precision") {
  Op toI32 = unaryOp(ScalarType::I32, [](Expr x) { return cast(ScalarType::I32, x); });
  CHECK(runUnary(toI32, {2.9, -2.9, 0.5, -0.0}) == std::vector<double>{2, -2, 0, 0});
  Op toI8 = unaryOp(ScalarType::I8, [](Expr x) { return cast(ScalarType::I8, x); }, ScalarType::I64);
  CHECK(runUnary(toI8, {300, -129}) == std::vector<double>{44, 127});
  // f16: 11 significant bits; 2049 is a tie between 2048 and 2050 -> even.
  Op toF16 = unaryOp(ScalarType::F16, [](Expr x) { return cast(ScalarType::F16, x); }, ScalarType::F64);
  CHECK(runUnary(toF16, {2049, 2051, 1e5, 1e-8}) == std::vector<double>{2048, 2052, INFINITY, 0});
  CHECK(runUnary(toF16, {std::ldexp(1.0, -24)})[0] == std::ldexp(1.0, -24)); // smallest subnormal
  Op toBF16 = unaryOp(ScalarType::BF16, [](Expr x) { return cast(ScalarType::BF16, x); }, ScalarType::F64);
  CHECK(runUnary(toBF16, {257, 1.00390625})[0] == 256);
  Op toF32 = unaryOp(ScalarType::F32, [](Expr x) { return cast(ScalarType::F32, x); }, ScalarType::F64);
  CHECK(runUnary(toF32, {0.1})[0] == static_cast<double>(0.1f));
}

TEST_CASE("interp: stores round to the target dtype") {
  // Y: f32 = X (f64) * 1: the store rounds like an implicit cast.
  Op op = unaryOp(ScalarType::F32, [](Expr x) { return binary(BinOp::Mul, x, floatImm(1.0, ScalarType::F64)); },
                  ScalarType::F64);
  CHECK(runUnary(op, {1.0 / 3})[0] == static_cast<double>(1.0f / 3));
}

TEST_CASE("interp: reductions over an empty domain give the identity") {
  for (auto [r, expect] : {std::pair{ReduceOp::Sum, 0.0}, {ReduceOp::Prod, 1.0},
                           {ReduceOp::Max, -INFINITY}, {ReduceOp::Min, INFINITY}}) {
    Op op = matmulOp();
    op.where.clear();
    op.body[0].value = reduce(r, {iv("k", sym("K"))}, op.body[0].value->args[0]);
    InterpArgs args;
    args.symbols = {{"M", 1}, {"K", 0}, {"N", 1}};
    args.tensors["A"] = {};
    args.tensors["B"] = {};
    InterpResult res = interpret(op, args);
    REQUIRE(res.status == 0);
    CHECK(res.tensors.at("C")[0] == expect);
  }
}

TEST_CASE("interp: padded loads read the else value outside the tensor") {
  // Y[i] = max(r < 3) X[i + r - 1] else -inf   (max pooling, window 3, pad 1)
  Op op;
  auto X = tensor("X", ScalarType::F32, {sym("N")}, TensorRole::Input);
  auto Y = tensor("Y", ScalarType::F32, {sym("N")}, TensorRole::Output);
  op.inputs = {tensorParam(X)};
  op.outputs = {Y};
  op.symbols = {"N"};
  Expr read = load(X, {sub(add(idx("i"), idx("r")), intImm(1))}, unary(UnOp::Neg, floatImm(INFINITY)));
  op.body = {Assign{Y, {iv("i", sym("N"))}, reduce(ReduceOp::Max, {iv("r", intImm(3))}, read), {}}};
  InterpArgs args;
  args.symbols["N"] = 4;
  args.tensors["X"] = {-5, -1, -7, -2};
  InterpResult r = interpret(op, args);
  REQUIRE(r.status == 0);
  CHECK(r.tensors.at("Y") == std::vector<double>{-1, -1, -1, -2});

  // Without `else`, an out-of-range read is a frontend bug, not a value.
  op.body[0].value = reduce(ReduceOp::Max, {iv("r", intImm(3))},
                            load(X, {sub(add(idx("i"), idx("r")), intImm(1))}));
  CHECK_THROWS_AS(interpret(op, args), tk::InternalError);
}

TEST_CASE("interp: intermediates are computed in order and returned") {
  // S[i] = sum(j) X[i, j];  Y[i, j] = X[i, j] / S[i]
  Op op;
  auto X = tensor("X", ScalarType::F32, {sym("M"), sym("N")}, TensorRole::Input);
  auto S = tensor("S", ScalarType::F32, {sym("M")}, TensorRole::Intermediate);
  auto Y = tensor("Y", ScalarType::F32, {sym("M"), sym("N")}, TensorRole::Output);
  op.inputs = {tensorParam(X)};
  op.outputs = {Y};
  op.intermediates = {S};
  op.symbols = {"M", "N"};
  op.body = {
      Assign{S, {iv("i", sym("M"))}, reduce(ReduceOp::Sum, {iv("j", sym("N"))}, load(X, {idx("i"), idx("j")})), {}},
      Assign{Y, {iv("i", sym("M")), iv("j", sym("N"))},
             binary(BinOp::Div, load(X, {idx("i"), idx("j")}), load(S, {idx("i")})), {}}};
  InterpArgs args;
  args.symbols = {{"M", 2}, {"N", 2}};
  args.tensors["X"] = {1, 3, 2, 2};
  InterpResult r = interpret(op, args);
  REQUIRE(r.status == 0);
  CHECK(r.tensors.at("S") == std::vector<double>{4, 4});
  CHECK(r.tensors.at("Y") == std::vector<double>{0.25, 0.75, 0.5, 0.5});
  CHECK(r.errorBounds.at("Y")[1] > 0);
}

TEST_CASE("interp: scalar parameters, select and math calls") {
  // Y[i] = select(X[i] > 0, X[i] * alpha, exp(X[i])) with alpha: f32
  Op op;
  auto X = tensor("X", ScalarType::F32, {sym("N")}, TensorRole::Input);
  auto Y = tensor("Y", ScalarType::F32, {sym("N")}, TensorRole::Output);
  op.inputs = {tensorParam(X), scalarParam("alpha", ScalarType::F32)};
  op.outputs = {Y};
  op.symbols = {"N"};
  Expr x = load(X, {idx("i")});
  Expr alpha = var("alpha", VarKind::Symbol, ScalarType::F32);
  op.body = {Assign{Y, {iv("i", sym("N"))},
                    select(binary(BinOp::GT, x, floatImm(0)), binary(BinOp::Mul, x, alpha), call(MathFn::Exp, x)), {}}};
  InterpArgs args;
  args.symbols["N"] = 2;
  args.scalars["alpha"] = 0.5;
  args.tensors["X"] = {4, -1};
  InterpResult r = interpret(op, args);
  REQUIRE(r.status == 0);
  CHECK(r.tensors.at("Y")[0] == 2);
  CHECK(r.tensors.at("Y")[1] == doctest::Approx(std::exp(-1.0)).epsilon(1e-7));
  CHECK(r.errorBounds.at("Y")[1] > 0);
}

TEST_CASE("interp: roundToType and unitRoundoff") {
  CHECK(roundToType(65519, ScalarType::F16) == 65504);
  CHECK(roundToType(65520, ScalarType::F16) == INFINITY);
  CHECK(roundToType(-3.7, ScalarType::I64) == -3);
  CHECK(roundToType(2, ScalarType::Bool) == 1);
  CHECK(unitRoundoff(ScalarType::F32) == std::ldexp(1.0, -24));
  CHECK(unitRoundoff(ScalarType::I32) == 0);
}

// ---- conversions as docs/abi.md ("Types") documents them -----------------
// Each case states the documented result; the compiled code agrees
// (tests/e2e/conversions.tk).

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// A cast of an X of type `from` to `to` (Y = to(X[i])).
std::vector<double> castAll(ScalarType from, ScalarType to, std::vector<double> x) {
  return runUnary(unaryOp(to, [to](Expr v) { return cast(to, v); }, from), std::move(x));
}

// A cast of an exact integer value (an i64 literal), so inputs beyond 2^53
// are not rounded on the way in.
double castInt(int64_t v, ScalarType to) {
  Op op = unaryOp(to, [&](Expr) { return cast(to, intImm(v)); });
  return runUnary(op, {0})[0];
}

bool sameBits(double a, double b) {
  return std::isnan(a) ? std::isnan(b) : a == b && std::signbit(a) == std::signbit(b);
}

} // namespace

TEST_CASE("interp conversions: float -> integer truncates and saturates, NaN is 0") {
  // The issue's case: i8(-732.5) saturates to -128 (it used to wrap to 36).
  CHECK(castAll(ScalarType::F32, ScalarType::I8, {-732.5, 732.5, 127.9, -128.9, 126.5, -0.0, kNaN, kInf, -kInf}) ==
        std::vector<double>{-128, 127, 127, -128, 126, 0, 0, 127, -128});
  CHECK(castAll(ScalarType::F64, ScalarType::I32, {3e9, -3e9, 2147483647.9, -2147483648.9, kNaN, kInf, -kInf}) ==
        std::vector<double>{INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, 0, INT32_MAX, INT32_MIN});
  std::vector<double> i64 = castAll(ScalarType::F64, ScalarType::I64, {1e19, -1e19, 0x1p63, -0x1p63, kNaN, -2.5});
  CHECK(i64[0] == static_cast<double>(INT64_MAX)); // (as a double, 2^63)
  CHECK(i64[1] == -0x1p63);
  CHECK(i64[3] == -0x1p63);
  CHECK(i64[4] == 0);
  CHECK(i64[5] == -2);
  // Each narrower source type converts the same way.
  CHECK(castAll(ScalarType::F16, ScalarType::I8, {-300, 65504, kInf}) == std::vector<double>{-128, 127, 127});
  CHECK(castAll(ScalarType::BF16, ScalarType::I32, {1e30, -1e30, -1.5}) ==
        std::vector<double>{INT32_MAX, INT32_MIN, -1});
  CHECK(roundToType(-732.5, ScalarType::I8) == -128);
  CHECK(roundToType(kNaN, ScalarType::I32) == 0);
}

TEST_CASE("interp conversions: to bool compares with zero, NaN is true") {
  CHECK(castAll(ScalarType::F32, ScalarType::Bool, {0.25, -0.0, 0.0, kNaN, -kInf, 1e-45}) ==
        std::vector<double>{1, 0, 0, 1, 1, 1});
  CHECK(castAll(ScalarType::I32, ScalarType::Bool, {0, -1, 256}) == std::vector<double>{0, 1, 1});
  CHECK(castAll(ScalarType::I8, ScalarType::Bool, {-128, 0}) == std::vector<double>{1, 0});
  // bool -> numbers: 0 / 1.
  CHECK(castAll(ScalarType::Bool, ScalarType::F16, {1, 0}) == std::vector<double>{1, 0});
  CHECK(castAll(ScalarType::Bool, ScalarType::I8, {1, 0}) == std::vector<double>{1, 0});
  CHECK(roundToType(kNaN, ScalarType::Bool) == 1);
}

TEST_CASE("interp conversions: integer -> narrower integer wraps, wider is exact") {
  CHECK(castAll(ScalarType::I64, ScalarType::I8, {300, -129, 128, -128, 255}) ==
        std::vector<double>{44, 127, -128, -128, -1});
  CHECK(castAll(ScalarType::I64, ScalarType::I32, {0x1p32 + 5, 0x1p31, -0x1p31 - 1}) ==
        std::vector<double>{5, INT32_MIN, INT32_MAX});
  CHECK(castAll(ScalarType::I32, ScalarType::I8, {200}) == std::vector<double>{-56});
  CHECK(castAll(ScalarType::I8, ScalarType::I64, {-128}) == std::vector<double>{-128});
  CHECK(castInt(INT64_MIN, ScalarType::I32) == 0);
  CHECK(castInt(INT64_MAX, ScalarType::I8) == -1);
}

TEST_CASE("interp conversions: integer -> float rounds once to nearest even") {
  // 2^53 + 1 is a tie in f64 (-> 2^53); 2^24 + 1 a tie in f32 (-> 2^24).
  CHECK(castInt((int64_t(1) << 53) + 1, ScalarType::F64) == 0x1p53);
  CHECK(castInt((int64_t(1) << 24) + 1, ScalarType::F32) == 0x1p24);
  CHECK(castInt((int64_t(1) << 24) + 3, ScalarType::F32) == 0x1p24 + 4);
  // 2^60 + 2^36 + 1 is just above the f32 tie 2^60 + 2^36: one rounding
  // gives 2^60 + 2^37; going through f64 would drop the 1 and round the
  // tie to even, 2^60.
  CHECK(castInt((int64_t(1) << 60) + (int64_t(1) << 36) + 1, ScalarType::F32) == 0x1p60 + 0x1p37);
  CHECK(castInt(INT64_MIN, ScalarType::F32) == -0x1p63);
  CHECK(castInt(INT64_MAX, ScalarType::F32) == 0x1p63);
  // f16: 2049 is a tie (-> 2048), past 65519 inf; bf16 through f32.
  CHECK(castAll(ScalarType::I32, ScalarType::F16, {2049, 2051, 65519, 65520, -70000}) ==
        std::vector<double>{2048, 2052, 65504, kInf, -kInf});
  CHECK(castAll(ScalarType::I32, ScalarType::BF16, {257, 259, -32896, -32897}) ==
        std::vector<double>{256, 260, -32768, -33024});
  // i64 -> bf16 rounds to f32 first: 2^32 + 2^24 + 1 becomes the f32
  // 2^32 + 2^24, a bf16 tie that rounds to even (2^32); one rounding
  // would give 2^32 + 2^25.
  CHECK(castInt((int64_t(1) << 32) + (int64_t(1) << 24) + 1, ScalarType::BF16) == 0x1p32);
}

TEST_CASE("interp conversions: float -> narrower float, halfway cases, inf, NaN, -0.0") {
  // f32: 1 + 2^-24 is a tie between 1 and 1 + 2^-23 (-> 1, even); 1 + 3*2^-24 -> 1 + 2^-22.
  CHECK(castAll(ScalarType::F64, ScalarType::F32, {1 + 0x1p-24, 1 + 3 * 0x1p-24, 1e39, -1e39, 0x1p-149, 0x1p-150}) ==
        std::vector<double>{1, 1 + 0x1p-22, kInf, -kInf, 0x1p-149, 0});
  // f16 from f32: ties to even at 1 + 2^-11 (-> 1) and 1 + 3*2^-11 (-> 1 + 2^-9);
  // 65519.99 -> 65504, 65520 -> inf; subnormals down to 2^-24, 2^-25 a tie -> 0.
  CHECK(castAll(ScalarType::F32, ScalarType::F16,
                {1 + 0x1p-11, 1 + 3 * 0x1p-11, 65519.99, 65520, -65520, 0x1p-24, 0x1p-25, 3 * 0x1p-25}) ==
        std::vector<double>{1, 1 + 0x1p-9, 65504, kInf, -kInf, 0x1p-24, 0, 0x1p-23});
  // bf16 from f32: ties at 1 + 2^-8 (-> 1) and 1 + 3*2^-8 (-> 1 + 2^-6);
  // the largest f32 rounds up to inf; 2^-133 is the smallest subnormal.
  CHECK(castAll(ScalarType::F32, ScalarType::BF16,
                {1 + 0x1p-8, 1 + 3 * 0x1p-8, 3.4028234663852886e38, 0x1p-133, 0x1p-134}) ==
        std::vector<double>{1, 1 + 0x1p-6, kInf, 0x1p-133, 0});
  // f64 -> f16 / bf16 go through f32: 1 + 2^-11 + 2^-40 becomes the f32 tie
  // 1 + 2^-11, which rounds to even (1), not up (1 + 2^-10).
  CHECK(castAll(ScalarType::F64, ScalarType::F16, {1 + 0x1p-11 + 0x1p-40})[0] == 1);
  CHECK(castAll(ScalarType::F64, ScalarType::BF16, {1 + 0x1p-8 + 0x1p-40})[0] == 1);
  // Between the 16-bit types (through f32, exact on the way).
  CHECK(castAll(ScalarType::BF16, ScalarType::F16, {1e5, 3.0, 0x1p-30}) == std::vector<double>{kInf, 3, 0});
  CHECK(castAll(ScalarType::F16, ScalarType::BF16, {65504, 1 + 0x1p-10}) == std::vector<double>{65536, 1});
  // inf, NaN and the sign of zero survive every float conversion.
  for (ScalarType from : {ScalarType::F64, ScalarType::F32, ScalarType::F16, ScalarType::BF16})
    for (ScalarType to : {ScalarType::F64, ScalarType::F32, ScalarType::F16, ScalarType::BF16}) {
      CAPTURE(scalarTypeName(from));
      CAPTURE(scalarTypeName(to));
      std::vector<double> y = castAll(from, to, {kInf, -kInf, kNaN, -0.0, 0.0});
      CHECK(sameBits(y[0], kInf));
      CHECK(sameBits(y[1], -kInf));
      CHECK(std::isnan(y[2]));
      CHECK(sameBits(y[3], -0.0));
      CHECK(sameBits(y[4], 0.0));
    }
}

TEST_CASE("interp: integer arithmetic wraps at the type's width") {
  auto op = [](ScalarType t, BinOp o, int64_t c) {
    return unaryOp(t, [=](Expr x) { return binary(o, x, intImm(c, t)); }, t);
  };
  CHECK(runUnary(op(ScalarType::I8, BinOp::Add, 100), {100, -128}) == std::vector<double>{-56, -28});
  CHECK(runUnary(op(ScalarType::I8, BinOp::Mul, 2), {-128, 64}) == std::vector<double>{0, -128});
  CHECK(runUnary(op(ScalarType::I32, BinOp::Sub, 1), {INT32_MIN}) == std::vector<double>{INT32_MAX});
  // i64: wraps (an int64_t overflow in the interpreter would be undefined).
  Op add64 = unaryOp(ScalarType::I64, [](Expr) { return binary(BinOp::Add, intImm(INT64_MAX), intImm(1)); });
  CHECK(runUnary(add64, {0})[0] == -0x1p63);
  Op neg64 = unaryOp(ScalarType::I64, [](Expr) { return unary(UnOp::Neg, intImm(INT64_MIN)); });
  CHECK(runUnary(neg64, {0})[0] == -0x1p63);
  // abs of the minimum wraps to itself (llvm.abs without poison).
  Op abs8 = unaryOp(ScalarType::I8, [](Expr x) { return call(MathFn::Abs, x); }, ScalarType::I8);
  CHECK(runUnary(abs8, {-128, -5, 7}) == std::vector<double>{-128, 5, 7});
}

TEST_CASE("interp: integer /, % and cdiv for every sign, and their undefined cases") {
  auto f = [](BinOp o, ScalarType t, int64_t divisor) {
    return unaryOp(t, [=](Expr x) { return binary(o, x, intImm(divisor, t)); }, t);
  };
  // Floor division, floor modulo (the sign of the divisor), ceiling division.
  CHECK(runUnary(f(BinOp::Div, ScalarType::I32, -3), {-7, 7, -6, 0}) == std::vector<double>{2, -3, 2, 0});
  CHECK(runUnary(f(BinOp::Mod, ScalarType::I32, -3), {-7, 7, -6, 0}) == std::vector<double>{-1, -2, 0, 0});
  CHECK(runUnary(f(BinOp::CDiv, ScalarType::I32, -3), {-7, 7, -6, 0}) == std::vector<double>{3, -2, 2, 0});
  CHECK(runUnary(f(BinOp::CDiv, ScalarType::I32, 3), {-7, 7, 1, -1}) == std::vector<double>{-2, 3, 1, 0});
  CHECK(runUnary(f(BinOp::Mod, ScalarType::I8, 5), {-128, 127}) == std::vector<double>{2, 2});
  // a == (a / b) * b + a % b everywhere.
  for (int64_t b : {-7, -2, -1, 1, 3, 8})
    for (int64_t a = -20; a <= 20; ++a) {
      int64_t q = tk::ir::interp::floorDivInt(a, b), r = tk::ir::interp::floorModInt(a, b);
      CHECK(q * b + r == a);
      CHECK((r == 0 || (r < 0) == (b < 0)));
      CHECK(tk::ir::interp::ceilDivInt(a, b) == -tk::ir::interp::floorDivInt(-a, b));
    }
  // Extremes that do not overflow.
  CHECK(tk::ir::interp::ceilDivInt(INT64_MIN, 2) == INT64_MIN / 2);
  CHECK(tk::ir::interp::floorModInt(INT64_MIN, 7) == 6);
  CHECK(tk::ir::interp::floorDivInt(INT64_MAX, -1) == -INT64_MAX);
  // Undefined in the compiled code (sdiv): division by zero and the type's
  // minimum divided by -1, for /, % and cdiv, throw instead of crashing.
  for (BinOp o : {BinOp::Div, BinOp::Mod, BinOp::CDiv}) {
    CHECK_THROWS_AS(runUnary(f(o, ScalarType::I64, 0), {5}), std::domain_error);
    CHECK_THROWS_AS(runUnary(f(o, ScalarType::I8, -1), {-128}), std::domain_error);
    CHECK_THROWS_AS(runUnary(f(o, ScalarType::I32, -1), {INT32_MIN}), std::domain_error);
    Op min64 = unaryOp(ScalarType::I64, [o](Expr) { return binary(o, intImm(INT64_MIN), intImm(-1)); });
    CHECK_THROWS_AS(runUnary(min64, {0}), std::domain_error);
  }
  CHECK(runUnary(f(BinOp::Div, ScalarType::I8, -1), {-127, 127}) == std::vector<double>{127, -127});
}

TEST_CASE("interp: float min / max let a NaN operand lose, like minnum / maxnum") {
  Op mx = unaryOp(ScalarType::F32, [](Expr x) { return binary(BinOp::Max, x, floatImm(1)); });
  std::vector<double> y = runUnary(mx, {kNaN, 3, -kInf});
  CHECK(y == std::vector<double>{1, 3, 1});
  Op mn = unaryOp(ScalarType::F32, [](Expr x) { return binary(BinOp::Min, floatImm(1), x); });
  CHECK(runUnary(mn, {kNaN, -3})[0] == 1);
}
