// FlatIndex (ir/FlatIndex.h): which trailing index pairs address one
// element of a tensor's flattened last two dimensions.
#include "ir/FlatIndex.h"
#include "ir/Simplify.h"
#include "sched_build.h"

#include <doctest/doctest.h>

using namespace tk::ir;
using tk::schedtest::ci;
using tk::schedtest::lv;
using tk::schedtest::sym;
using tk::schedtest::tensor;

namespace {

std::string flat(const TensorDecl &t, std::vector<Expr> idx) {
  Expr e = flatTrailingIndex(t, idx);
  return e ? printExpr(simplify(e)) : "none";
}

} // namespace

TEST_CASE("flat index: [e / S, e % S] over the last extent S is element e") {
  Expr b = lv("b"), x = lv("x"), S = sym("W");
  Expr e = add(mul(b, ci(64)), x);
  auto X = tensor("X", {sym("C"), sym("H"), S}, TensorRole::Input);
  CHECK(flat(*X, {lv("c"), binary(BinOp::Div, e, S), binary(BinOp::Mod, e, S)}) == "b * 64 + x");
  // Another divisor, another dividend, or a pair that is not last: none.
  CHECK(flat(*X, {lv("c"), binary(BinOp::Div, e, sym("H")), binary(BinOp::Mod, e, sym("H"))}) == "none");
  CHECK(flat(*X, {lv("c"), binary(BinOp::Div, x, S), binary(BinOp::Mod, e, S)}) == "none");
  CHECK(flat(*X, {binary(BinOp::Div, e, S), binary(BinOp::Mod, e, S), lv("c")}) == "none");
  CHECK(flat(*X, {lv("c"), e, binary(BinOp::Mod, e, S)}) == "none");
}

TEST_CASE("flat index: a constant last extent survives simplification") {
  // simplify((b*64 + x) / 16) is b*4 + x / 16, and (b*64 + x) % 16 is x % 16.
  Expr b = lv("b"), x = lv("x"), e = add(mul(b, ci(64)), x);
  auto T = tensor("T", {sym("H"), ci(16)}, TensorRole::Input);
  Expr q = simplify(binary(BinOp::Div, e, ci(16))), r = simplify(binary(BinOp::Mod, e, ci(16)));
  CHECK(printExpr(q) == "b * 4 + x / 16");
  CHECK(flat(*T, {q, r}) == "b * 64 + x");
  // The linear head must go with a quotient of the same dividend.
  CHECK(flat(*T, {simplify(add(mul(b, ci(4)), binary(BinOp::Div, b, ci(16)))), r}) == "none");
}

TEST_CASE("flat index: a pair at any two adjacent dimensions, first match") {
  Expr e = lv("e"), K = sym("K");
  auto W = tensor("W", {sym("J"), K, sym("L")}, TensorRole::Input);
  std::optional<FlatPair> p = flatPairIndex(*W, {binary(BinOp::Div, e, K), binary(BinOp::Mod, e, K), lv("l")});
  REQUIRE(p);
  CHECK(p->dim == 0);
  CHECK(printExpr(p->index) == "e");
  // Not trailing: flatTrailingIndex says none.
  CHECK(!flatTrailingIndex(*W, {binary(BinOp::Div, e, K), binary(BinOp::Mod, e, K), lv("l")}));
  // The divisor must be the second dimension's extent.
  CHECK(!flatPairIndex(*W, {binary(BinOp::Div, e, sym("L")), binary(BinOp::Mod, e, sym("L")), lv("l")}));
  CHECK(!flatPairIndex(*W, {lv("j"), lv("k"), lv("l")}));
}
