// Index-arithmetic simplification rules (ir/Simplify.h).
#include "ir/Simplify.h"
#include "sched_build.h"

#include <doctest/doctest.h>

using namespace tk::ir;
using tk::schedtest::ci;
using tk::schedtest::lv;
using tk::schedtest::sym;

static std::string s(const Expr &e, const VarBounds *b = nullptr) { return printExpr(simplify(e, b)); }

TEST_CASE("simplify: constant folding and identities") {
  Expr x = lv("x");
  CHECK(s(binary(BinOp::Add, ci(2), binary(BinOp::Mul, ci(3), ci(4)))) == "14");
  CHECK(s(binary(BinOp::Mul, x, ci(1))) == "x");
  CHECK(s(binary(BinOp::Add, ci(0), x)) == "x");
  CHECK(s(binary(BinOp::Sub, x, x)) == "0");
  CHECK(s(binary(BinOp::Mul, x, ci(0))) == "0");
  CHECK(s(binary(BinOp::Div, x, ci(1))) == "x");
  CHECK(s(binary(BinOp::Mod, x, ci(1))) == "0");
  CHECK(s(binary(BinOp::Div, ci(-7), ci(2))) == "-4"); // floor division
  CHECK(s(binary(BinOp::Mod, ci(-7), ci(2))) == "1");  // floor modulo
  CHECK(s(binary(BinOp::CDiv, ci(7), ci(2))) == "4");
  CHECK(s(binary(BinOp::Min, ci(3), ci(5))) == "3");
  CHECK(s(binary(BinOp::Max, ci(3), ci(5))) == "5");
  CHECK(s(binary(BinOp::Max, x, x)) == "x");
  CHECK(s(binary(BinOp::LT, ci(3), ci(5))) == "true");
  CHECK(s(binary(BinOp::And, boolImm(true), binary(BinOp::LT, x, sym("N")))) == "x < N");
  CHECK(s(select(boolImm(false), x, ci(2))) == "2");
}

TEST_CASE("simplify: canonical sums combine like terms") {
  Expr i = lv("i"), j = lv("j");
  // (j + 2*i) + (i - j) + 3 -> i * 3 + 3
  Expr e = binary(BinOp::Add, binary(BinOp::Add, binary(BinOp::Add, j, binary(BinOp::Mul, ci(2), i)),
                                     binary(BinOp::Sub, i, j)),
                  ci(3));
  CHECK(s(e) == "i * 3 + 3");
  // variables are ordered by name whatever order they came in
  CHECK(s(binary(BinOp::Add, j, i)) == s(binary(BinOp::Add, i, j)));
  CHECK(s(binary(BinOp::Sub, ci(1), i)) == "-i + 1");
}

TEST_CASE("simplify: (a*c + b) / c and % c with 0 <= b < c") {
  Expr a = lv("a"), b = lv("b");
  VarBounds bounds{{"b", {0, 3}}};
  Expr lin = binary(BinOp::Add, binary(BinOp::Mul, a, ci(4)), b);
  CHECK(s(binary(BinOp::Div, lin, ci(4)), &bounds) == "a");
  CHECK(s(binary(BinOp::Mod, lin, ci(4)), &bounds) == "b");
  // without bounds on b the remainder stays: a + b / 4
  CHECK(s(binary(BinOp::Div, lin, ci(4))) == "a + b / 4");
  CHECK(s(binary(BinOp::Mod, lin, ci(4))) == "b % 4");
  // constants split into quotient and remainder: (a*4 + 9) / 4 = a + 2 (+ 1/4 -> 0)
  CHECK(s(binary(BinOp::Div, binary(BinOp::Add, binary(BinOp::Mul, a, ci(4)), ci(9)), ci(4))) == "a + 2");
}

TEST_CASE("simplify: nested floor div / mod") {
  Expr w = lv("w");
  CHECK(s(binary(BinOp::Div, binary(BinOp::Div, w, ci(8)), ci(4))) == "w / 32");
  CHECK(s(binary(BinOp::Mod, binary(BinOp::Mod, w, ci(32)), ci(8))) == "w % 8");
  VarBounds bounds{{"w", {0, 31}}};
  CHECK(s(binary(BinOp::Mod, w, ci(32)), &bounds) == "w");
  CHECK(s(binary(BinOp::Div, w, ci(32)), &bounds) == "0");
  CHECK(s(binary(BinOp::LT, w, ci(32)), &bounds) == "true");
  CHECK(s(binary(BinOp::LE, ci(0), w), &bounds) == "true");
  CHECK(s(binary(BinOp::Min, w, ci(40)), &bounds) == "w");
}

TEST_CASE("simplify: linear forms and bounds") {
  LinearForm f = linearize(binary(BinOp::Sub, binary(BinOp::Mul, lv("bi"), ci(32)), binary(BinOp::Sub, ci(1), lv("i"))));
  REQUIRE(f.terms.size() == 2);
  CHECK(f.terms[0].first->name == "bi");
  CHECK(f.terms[0].second == 32);
  CHECK(f.terms[1].second == 1);
  CHECK(f.constant == -1);
  VarBounds b{{"bi", {0, 3}}, {"i", {0, 31}}};
  auto r = constBounds(fromLinear(f), &b);
  REQUIRE(r);
  CHECK(r->first == -1);
  CHECK(r->second == 126);
  CHECK(provablyEquals(binary(BinOp::Mul, ci(6), ci(7)), 42));
  // float arithmetic is left alone
  Expr fx = floatImm(1.5);
  CHECK(s(binary(BinOp::Add, fx, fx)) == "1.5 + 1.5");
}

// Every rewrite keeps the type of the node it replaces (issue 19: `(p - p) -
// i8(x)` became `-i8(x)`, negated in i8, so -(-128) wrapped to -128).
namespace {
Expr v8(const std::string &n) { return var(n, VarKind::Loop, ScalarType::I8); }
Expr v32(const std::string &n) { return var(n, VarKind::Loop, ScalarType::I32); }
// simplify(e) printed, after checking that it kept e's type.
std::string typed(const Expr &e, const VarBounds *b = nullptr) {
  Expr r = simplify(e, b);
  CHECK_MESSAGE(r->type == e->type, printExpr(e), " -> ", printExpr(r));
  return printExpr(r);
}
} // namespace

TEST_CASE("simplify: rewrites keep the node's type") {
  Expr p = lv("p"), b = v8("b"), w = v32("w");
  Expr cb = cast(ScalarType::I8, floatImm(-1.0)); // an i8 operand that is not a variable
  // 0 - e -> -e, with e widened first (the miscompile of issue 19)
  CHECK(typed(binary(BinOp::Sub, binary(BinOp::Sub, p, p), cb)) == "-i64(i8(-1.0))");
  CHECK(typed(binary(BinOp::Sub, ci(0), b)) == "-i64(b)");
  // x + 0, 0 + x, x - 0, x * 1, 1 * x
  CHECK(typed(binary(BinOp::Add, b, ci(0))) == "i64(b)");
  CHECK(typed(binary(BinOp::Add, ci(0), w)) == "i64(w)");
  CHECK(typed(binary(BinOp::Sub, b, ci(0))) == "i64(b)");
  CHECK(typed(binary(BinOp::Mul, b, ci(1))) == "i64(b)");
  CHECK(typed(binary(BinOp::Mul, ci(1), w)) == "i64(w)");
  // x - x and x * 0 -> 0 of the node's type
  CHECK(typed(binary(BinOp::Sub, b, b)) == "0");
  CHECK(typed(binary(BinOp::Mul, w, intImm(0, ScalarType::I32))) == "0");
  // like terms of a narrow type in a wider sum: combined in the wide type
  CHECK(typed(binary(BinOp::Add, binary(BinOp::Add, p, b), binary(BinOp::Sub, b, p))) == "i64(b) * 2");
  // x / 1, cdiv(x, 1), x % 1, and x / c with 0 <= x < c
  CHECK(typed(binary(BinOp::Div, b, ci(1))) == "i64(b)");
  CHECK(typed(binary(BinOp::CDiv, w, ci(1))) == "i64(w)");
  CHECK(typed(binary(BinOp::Mod, b, ci(1))) == "0");
  // min/max of equal or ordered operands
  CHECK(typed(binary(BinOp::Max, b, b)) == "b");
  VarBounds bw{{"w", {0, 10}}};
  CHECK(typed(binary(BinOp::Min, w, ci(40)), &bw) == "i64(w)");
  CHECK(typed(binary(BinOp::Max, w, ci(40)), &bw) == "40");
  // select of a constant condition
  CHECK(typed(select(boolImm(true), b, p)) == "i64(b)");
  CHECK(typed(select(boolImm(false), p, w)) == "i64(w)");
  // logic: true && x, !!x (x != 0: a cast to bool for a non-bool x)
  Expr lt = binary(BinOp::LT, p, ci(3));
  CHECK(typed(binary(BinOp::And, boolImm(true), lt)) == "p < 3");
  CHECK(typed(unary(UnOp::Not, unary(UnOp::Not, lt))) == "p < 3");
  CHECK(typed(unary(UnOp::Not, unary(UnOp::Not, w))) == "bool(w)");
  // constant folds take the node's type
  CHECK(typed(binary(BinOp::Add, intImm(2, ScalarType::I32), intImm(3, ScalarType::I32))) == "5");
  CHECK(typed(cast(ScalarType::I8, ci(300))) == "44");
}

TEST_CASE("simplify: narrow integer arithmetic wraps, so it is not expanded into a wider sum") {
  Expr p = lv("p"), b = v8("b"), w = v32("w");
  // p + (b + b): the inner i8 sum wraps at 127; it stays one i8 term.
  CHECK(typed(binary(BinOp::Add, p, binary(BinOp::Add, b, b))) == "p + i64(b * 2)");
  // within one narrow type the sum is rearranged (two's complement is a ring)
  CHECK(typed(binary(BinOp::Sub, binary(BinOp::Add, w, intImm(5, ScalarType::I32)), w)) == "5");
  // w + 1 > w is false for the largest i32: not folded without bounds on w
  Expr gt = binary(BinOp::GT, binary(BinOp::Add, w, intImm(1, ScalarType::I32)), w);
  CHECK(typed(gt) == "w + 1 > w");
  VarBounds small{{"w", {0, 100}}};
  CHECK(typed(gt, &small) == "true");
  // max(b + 1, b) is b + 1 only when b + 1 cannot wrap
  Expr mx = binary(BinOp::Max, binary(BinOp::Add, b, intImm(1, ScalarType::I8)), b);
  CHECK(typed(mx) == "max(b + 1, b)");
  // bounds that leave the type are unknown: i8 b + 100 for b in [0, 100]
  VarBounds bb{{"b", {0, 100}}};
  CHECK_FALSE(constBounds(binary(BinOp::Add, b, intImm(100, ScalarType::I8)), &bb));
  CHECK(constBounds(binary(BinOp::Add, b, ci(100)), &bb) == std::pair<int64_t, int64_t>{100, 200});
  // floor division of a narrow sum is not split: (b*4 + 1) / 4 may wrap
  Expr q = binary(BinOp::Div, binary(BinOp::Add, binary(BinOp::Mul, b, intImm(4, ScalarType::I8)),
                                     intImm(1, ScalarType::I8)),
                  intImm(4, ScalarType::I8));
  CHECK(typed(q) == "(b * 4 + 1) / 4");
}

TEST_CASE("index arithmetic constructors keep the promoted type") {
  Expr b = v8("b"), w = v32("w");
  CHECK(add(ci(0), b)->type == ScalarType::I64);
  CHECK(printExpr(add(ci(0), b)) == "i64(b)");
  CHECK(printExpr(add(w, ci(0))) == "i64(w)");
  CHECK(printExpr(sub(b, ci(0))) == "i64(b)");
  CHECK(printExpr(mul(ci(1), w)) == "i64(w)");
  CHECK(printExpr(mul(b, intImm(1, ScalarType::I8))) == "b");
  CHECK(mul(w, ci(0))->type == ScalarType::I64);
  CHECK(printExpr(floorDiv(w, ci(1))) == "i64(w)");
  CHECK(printExpr(ceilDiv(b, ci(1))) == "i64(b)");
  CHECK(floorMod(w, ci(1))->type == ScalarType::I64);
  Expr sum32 = add(intImm(2, ScalarType::I32), intImm(3, ScalarType::I32));
  CHECK(sum32->type == ScalarType::I32);
  CHECK(sum32->intValue == 5);
  // i32 constants whose sum leaves i32 are not folded
  CHECK(add(intImm(INT32_MAX, ScalarType::I32), intImm(1, ScalarType::I32))->kind == ExprKind::Binary);
  // float identities are not applied: -0.0 + 0 is +0.0, inf * 0 is NaN
  Expr fx = var("x", VarKind::Loop, ScalarType::F32);
  CHECK(add(fx, ci(0))->kind == ExprKind::Binary);
  CHECK(mul(fx, ci(0))->kind == ExprKind::Binary);
  CHECK(floorMod(fx, ci(1))->kind == ExprKind::Binary);
}
