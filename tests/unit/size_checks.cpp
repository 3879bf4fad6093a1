// Integer folding and tensor sizes near 2^62 and 2^63 (issue 19, items 4, 5
// and 15): folds are exact or not done (ir/IntArith.h), the simplifier
// never traps or wraps, constant sizes are measured with overflow checks
// (ir/TensorSize.h), and symbolic sizes are checked by the generated code
// before it allocates (status 3).
#include "ir/IntArith.h"
#include "ir/Simplify.h"
#include "ir/TensorSize.h"
#include "sched_build.h"
#include "x86_support.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

using namespace tk;
using namespace tk::ir;

namespace {
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t k2p62 = int64_t(1) << 62;
} // namespace

TEST_CASE("int arith: folds near 2^62 and 2^63 are exact or refused") {
  CHECK(foldIntBinary(BinOp::Div, kMin, -1).error == FoldError::Overflow);
  CHECK(foldIntBinary(BinOp::CDiv, kMin, -1).error == FoldError::Overflow);
  CHECK(foldIntBinary(BinOp::Mod, kMin, -1).value == 0);
  CHECK(foldIntBinary(BinOp::Mod, kMin, -1).ok());
  CHECK(foldIntBinary(BinOp::Mod, kMin, 3).value == 1); // floor modulo; kMin = -3074457345618258603 * 3 + 1
  CHECK(foldIntBinary(BinOp::Div, kMin, 3).value == -3074457345618258603);
  CHECK(foldIntBinary(BinOp::CDiv, kMax, 2).value == k2p62);
  CHECK(foldIntBinary(BinOp::CDiv, -7, 2).value == -3);
  CHECK(foldIntBinary(BinOp::CDiv, 7, -2).value == -3);
  CHECK(foldIntBinary(BinOp::CDiv, -7, -2).value == 4);
  CHECK(foldIntBinary(BinOp::Div, -7, 2).value == -4);
  CHECK(foldIntBinary(BinOp::Mod, -7, 2).value == 1);
  CHECK(foldIntBinary(BinOp::Mod, 7, -2).value == -1);
  CHECK(foldIntBinary(BinOp::Div, 1, 0).error == FoldError::DivisionByZero);
  CHECK(foldIntBinary(BinOp::Mod, 1, 0).error == FoldError::DivisionByZero);
  CHECK(foldIntBinary(BinOp::Mul, k2p62, 4).error == FoldError::Overflow);
  CHECK(foldIntBinary(BinOp::Mul, k2p62, -2).value == kMin);
  CHECK(foldIntBinary(BinOp::Add, kMax, 1).error == FoldError::Overflow);
  CHECK(foldIntBinary(BinOp::Sub, kMin, 1).error == FoldError::Overflow);
  CHECK(foldIntBinary(BinOp::Add, k2p62 - 1, k2p62).value == kMax);
  CHECK(foldIntNeg(kMin).error == FoldError::Overflow);
  CHECK(foldIntAbs(kMin).error == FoldError::Overflow);
  CHECK(foldIntAbs(-kMax).value == kMax);
  // Narrower types.
  CHECK(foldIntBinary(BinOp::Add, 2147483647, 1, ScalarType::I32).error == FoldError::Overflow);
  CHECK(foldIntBinary(BinOp::Mul, 64, 2, ScalarType::I8).error == FoldError::Overflow);
  CHECK(foldIntBinary(BinOp::Mul, -64, 2, ScalarType::I8).value == -128);
  CHECK(wrapToIntType(300, ScalarType::I8) == 44);
  CHECK(wrapToIntType(int64_t(1) << 32, ScalarType::I32) == 0);
}

TEST_CASE("int arith: the smart constructors and the simplifier neither trap nor wrap") {
  Expr minE = intImm(kMin), m1 = intImm(-1);
  // INT64_MIN / -1 raised SIGFPE while folding; now the nodes stay.
  CHECK(printExpr(floorDiv(minE, m1)) == "-9223372036854775808 / -1");
  CHECK(printExpr(ceilDiv(minE, m1)) == "cdiv(-9223372036854775808, -1)");
  CHECK(printExpr(simplify(binary(BinOp::Div, minE, m1))) == "-9223372036854775808 / -1");
  CHECK(printExpr(simplify(binary(BinOp::CDiv, minE, m1))) == "cdiv(-9223372036854775808, -1)");
  CHECK(provablyEquals(binary(BinOp::Mod, minE, m1), 0));
  CHECK(simplify(unary(UnOp::Neg, minE))->kind == ExprKind::Unary);
  // 2^62 * 4 is not 0.
  Expr big = mul(intImm(k2p62), intImm(4));
  CHECK(big->kind == ExprKind::Binary);
  Expr n = var("N", VarKind::Symbol);
  Expr e = simplify(binary(BinOp::Add, binary(BinOp::Mul, binary(BinOp::Mul, n, intImm(k2p62)), intImm(4)), n));
  int64_t v = 0;
  CHECK(!isConstInt(e, &v));
  CHECK(printExpr(e).find("4611686018427387904") != std::string::npos);
  CHECK(!provablyEquals(binary(BinOp::Mul, binary(BinOp::Mul, n, intImm(k2p62)), intImm(4)), 0));
  // Bounds that would overflow are unknown, not wrapped.
  VarBounds b{{"i", {0, k2p62}}};
  CHECK(!constBounds(binary(BinOp::Mul, var("i", VarKind::Loop), intImm(4)), &b));
  CHECK(!constBounds(binary(BinOp::Mul, var("i", VarKind::Loop), intImm(2)), &b)); // 2^63
  VarBounds b61{{"i", {0, int64_t(1) << 61}}};
  CHECK(constBounds(binary(BinOp::Mul, var("i", VarKind::Loop), intImm(2)), &b61)->second == k2p62);
  // An i32 sum is not folded to a constant beyond i32.
  Expr x = var("x", VarKind::Symbol, ScalarType::I32);
  Expr s = binary(BinOp::Add, binary(BinOp::Add, x, intImm(2147483647, ScalarType::I32)), intImm(1, ScalarType::I32));
  std::string printed = printExpr(simplify(s));
  CHECK(printed.find("2147483648") == std::string::npos);
  // Casts of constants wrap like the generated code.
  CHECK(simplify(cast(ScalarType::I8, intImm(300)))->intValue == 44);
}

TEST_CASE("tensor sizes: constant sizes near 2^62 and 2^63") {
  auto t = [](ScalarType dt, std::vector<Expr> shape) {
    auto d = std::make_shared<TensorDecl>();
    d->name = "t";
    d->dtype = dt;
    d->shape = std::move(shape);
    return d;
  };
  ConstantSize s = constantSize(*t(ScalarType::F32, {intImm(k2p62)}));
  CHECK(s.known);
  CHECK(s.tooLarge); // 4 * 2^62 wraps to 0 in int64
  s = constantSize(*t(ScalarType::F32, {intImm(int64_t(1) << 61)}));
  CHECK(s.tooLarge);
  s = constantSize(*t(ScalarType::I8, {intImm(kMaxTensorBytes)}));
  CHECK(!s.tooLarge);
  CHECK(s.bytes == kMaxTensorBytes);
  s = constantSize(*t(ScalarType::I8, {intImm(kMaxTensorBytes + 1)}));
  CHECK(s.tooLarge);
  s = constantSize(*t(ScalarType::F32, {intImm(k2p62), intImm(4), intImm(0)}));
  CHECK(s.tooLarge); // the prefix overflows
  s = constantSize(*t(ScalarType::F32, {var("N", VarKind::Symbol), intImm(k2p62)}));
  CHECK(!s.known);
  CHECK(s.tooLarge);
  s = constantSize(*t(ScalarType::F64, {intImm(512), binary(BinOp::Mul, intImm(2), intImm(64))}));
  CHECK(s.known);
  CHECK(s.bytes == 512 * 128 * 8);
}

TEST_CASE("tensor sizes: symbolic sizes that overflow return status 3 at run time") {
  Module m = unittest::moduleFromSource(R"(
op h(X: f32[N], K: i64) -> Y: f32[N] { Y[i] = X[i]; }
kernel global_k implements h on cpu {
  global t: f32[N, K];
  for i in 0..N { t[i, 0] = X[i]; Y[i] = t[i, 0] + 1.0; }
}
kernel local_k implements h on cpu {
  for i in spatial(N) on cores {
    local u: f32[K, K];
    u[0, 0] = X[i];
    Y[i] = u[0, 0] + 2.0;
  }
}
)");
  schedtest::DiagFixture fx;
  std::vector<LoweredFunc> fs = lowerModule(m, PipelineOptions{}, fx.diags);
  REQUIRE_MESSAGE(!fx.diags.hasErrors(), fx.messages());
  test::LoadedKernels k(fs, "x86_64", 2);
  using Fn = int(const float *, int64_t, float *, int64_t);
  float x[4] = {1, 2, 3, 4}, y[4] = {0, 0, 0, 0};
  // 4 bytes * 4 * 2^62 wrapped to 0 bytes: tkrt_alloc returned a block and
  // the kernel wrote past it.
  CHECK(k.get<Fn>("global_k")(x, k2p62, y, 4) == 3);
  CHECK(k.get<Fn>("global_k")(x, kMax, y, 4) == 3);
  CHECK(k.get<Fn>("global_k")(x, int64_t(1) << 60, y, 4) == 3); // 2^64 bytes
  CHECK(k.get<Fn>("local_k")(x, int64_t(1) << 31, y, 4) == 3);  // 2^64 bytes per task
  CHECK(k.get<Fn>("local_k")(x, int64_t(3037000500), y, 4) == 3); // K*K just over 2^63
  CHECK(y[3] == 0);
  REQUIRE(k.get<Fn>("global_k")(x, 3, y, 4) == 0);
  CHECK(y[3] == 5);
  REQUIRE(k.get<Fn>("local_k")(x, 3, y, 4) == 0);
  CHECK(y[3] == 6);
}
