// IndexRange: symbolic ranges of affine indices over their loops, and
// which read guards say no more than "inside the tensor" (what sizes and
// permits DeinterleaveStridedRows' padded phase rows).
#include "scheduler/IndexRange.h"

#include "ir/Simplify.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;

namespace {

Expr sym(const std::string &n) { return var(n, VarKind::Symbol); }
Expr lv(const std::string &n) { return var(n, VarKind::Loop); }

LStmtPtr loopOver(const std::string &v, Expr min, Expr extent) { return lFor(v, std::move(min), std::move(extent), nullptr); }

std::string text(const Expr &e) { return printExpr(simplify(e)); }

} // namespace

TEST_CASE("index range: an affine index over its loops, by the signs of its coefficients") {
  LStmtPtr s = loopOver("s", intImm(0), sym("kernel")), x = loopOver("x", intImm(2), sym("OW"));
  std::map<std::string, const LStmt *> loops{{"s", s.get()}, {"x", x.get()}};
  // 2*x + s - pad over x in [2, OW + 1], s in [0, kernel - 1].
  auto range = affineRange(add(add(mul(lv("x"), intImm(2)), lv("s")), mul(sym("pad"), intImm(-1))), loops, {});
  REQUIRE(range);
  CHECK(text(range->lo) == text(sub(intImm(4), sym("pad"))));
  CHECK(text(range->hi) == text(add(add(mul(add(sym("OW"), intImm(1)), intImm(2)), sub(sym("kernel"), intImm(1))),
                                    mul(sym("pad"), intImm(-1)))));
  // A negative coefficient swaps the ends.
  auto neg = affineRange(sub(intImm(10), lv("s")), loops, {});
  REQUIRE(neg);
  CHECK(text(neg->lo) == text(sub(intImm(11), sym("kernel"))));
  CHECK(text(neg->hi) == "10");
}

TEST_CASE("index range: non-affine uses, let-bound values and dependent bounds have none") {
  LStmtPtr s = loopOver("s", intImm(0), sym("kernel"));
  LStmtPtr t = loopOver("t", lv("s"), intImm(4)); // bounds depend on s
  std::map<std::string, const LStmt *> loops{{"s", s.get()}, {"t", t.get()}};
  CHECK_FALSE(affineRange(mul(lv("s"), lv("s")), loops, {}));
  CHECK_FALSE(affineRange(floorDiv(lv("s"), intImm(2)), loops, {}));
  CHECK_FALSE(affineRange(add(lv("s"), lv("n")), loops, {"n"}));
  CHECK_FALSE(affineRange(lv("t"), loops, {}));
  // Symbols alone are their own range.
  auto fixed = affineRange(add(sym("pad"), intImm(1)), loops, {});
  REQUIRE(fixed);
  CHECK(text(fixed->lo) == text(fixed->hi));
}

TEST_CASE("index range: a guard of bounds conditions only, in any arrangement") {
  auto X = std::make_shared<TensorDecl>();
  X->name = "X";
  X->shape = {sym("H"), sym("W")};
  Expr row = add(lv("y"), lv("r")), col = add(mul(lv("x"), intImm(2)), lv("s"));
  auto guarded = [&](Expr pred) { return load(X, {row, col}, floatImm(0), pred); };
  Expr colOk = binary(BinOp::And, binary(BinOp::GE, col, intImm(0)), binary(BinOp::GT, sym("W"), col));
  CHECK(guardOnlyBounds(guarded(colOk)));
  CHECK(guardOnlyBounds(guarded(binary(BinOp::And, colOk, binary(BinOp::LE, row, sub(sym("H"), intImm(1)))))));
  CHECK(guardOnlyBounds(load(X, {row, col}, floatImm(0)))); // implicit bounds
  // A condition that is not a bound of the read (a tile's overshoot test).
  CHECK_FALSE(guardOnlyBounds(guarded(binary(BinOp::And, colOk, binary(BinOp::LT, lv("x"), sym("OW"))))));
  CHECK_FALSE(guardOnlyBounds(guarded(binary(BinOp::LT, col, sub(sym("W"), intImm(1))))));
}
