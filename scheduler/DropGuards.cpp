#include "scheduler/DropGuards.h"

#include "ir/IRRewrite.h"

namespace tk {
using namespace ir;

void guardConjuncts(const Expr &pred, std::vector<Expr> &out) {
  if (pred->kind == ExprKind::Binary && pred->binOp == BinOp::And) {
    guardConjuncts(pred->args[0], out);
    guardConjuncts(pred->args[1], out);
  } else {
    out.push_back(pred);
  }
}

namespace {

Expr prune(const Expr &pred, const std::set<std::string> &proven) {
  if (!pred) return pred;
  std::vector<Expr> parts;
  guardConjuncts(pred, parts);
  Expr kept;
  for (const Expr &g : parts)
    if (!proven.count(printExpr(g))) kept = conjoin(kept, g);
  return kept;
}

} // namespace

LStmtPtr dropGuards(const LStmtPtr &s, const std::set<std::string> &proven) {
  auto inLoads = [&](const Expr &n) -> Expr {
    if (n->kind != ExprKind::Load || !n->pred) return n;
    Expr kept = prune(n->pred, proven);
    return load(n->tensor, n->args, kept ? n->pad : nullptr, kept, n->loc);
  };
  LStmtPtr out = rewriteLStmt(s, [&](const Expr &e) { return transformExpr(e, inLoads); });
  return transformLStmt(out, [&](const LStmtPtr &x) {
    if (x->kind == LStmt::Kind::Store) x->pred = prune(x->pred, proven);
    return x;
  });
}

} // namespace tk
