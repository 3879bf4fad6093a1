// Unit tests for the reference interpreter (ir/Interpreter.h) on hand-built
// tensor IR: the semantics every compiled kernel is later compared against.
#include <doctest/doctest.h>

#include "ir/Diagnostics.h"
#include "ir/Interpreter.h"

#include <cmath>
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
  CHECK(runUnary(toI32, {2.9, -2.9, 0.5}) == std::vector<double>{2, -2, 0});
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
