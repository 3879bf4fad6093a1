#include "ir/FlatIndex.h"

#include "ir/Simplify.h"

namespace tk::ir {

namespace {

// The flat index of the pair (q, m) over extent S, or null.
Expr pairIndex(const Expr &q, const Expr &m, const Expr &S) {
  auto is = [](const Expr &e, BinOp op) { return e->kind == ExprKind::Binary && e->binOp == op; };
  if (!is(m, BinOp::Mod) || !isInteger(q->type)) return nullptr;
  // Divisors are compared simplified: passes rewrite index expressions, and
  // the shape is stored as written.
  Expr extent = simplify(S), rest = simplify(m->args[0]);
  if (!sameExpr(simplify(m->args[1]), extent)) return nullptr;
  LinearForm head;
  bool found = false;
  LinearForm f = linearize(q);
  head.constant = f.constant;
  for (const auto &[atom, coef] : f.terms) {
    bool quotient = !found && coef == 1 && is(atom, BinOp::Div) && sameExpr(simplify(atom->args[1]), extent) &&
                    sameExpr(simplify(atom->args[0]), rest);
    if (quotient) found = true;
    else head.terms.push_back({atom, coef});
  }
  if (!found) return nullptr;
  if (head.terms.empty() && head.constant == 0) return m->args[0];
  return simplify(add(mul(fromLinear(head, q->type), extent), m->args[0]));
}

} // namespace

std::optional<FlatPair> flatPairIndex(const TensorDecl &t, const std::vector<Expr> &indices) {
  if (indices.size() != t.rank()) return std::nullopt;
  for (size_t d = 0; d + 1 < indices.size(); ++d)
    if (Expr e = pairIndex(indices[d], indices[d + 1], t.shape[d + 1])) return FlatPair{d, e};
  return std::nullopt;
}

Expr flatTrailingIndex(const TensorDecl &t, const std::vector<Expr> &indices) {
  size_t r = indices.size();
  if (r < 2 || r != t.rank()) return nullptr;
  return pairIndex(indices[r - 2], indices[r - 1], t.shape[r - 1]);
}

Expr innermostIndex(const TensorDecl &t, const std::vector<Expr> &indices) {
  if (indices.empty()) return nullptr;
  Expr flat = flatTrailingIndex(t, indices);
  return flat ? flat : indices.back();
}

} // namespace tk::ir
