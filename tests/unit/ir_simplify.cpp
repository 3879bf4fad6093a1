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
