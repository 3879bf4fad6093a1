#include "scheduler/DropGuards.h"

#include "ir/IRRewrite.h"
#include "ir/Simplify.h"

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

std::optional<GuardRange> solveGuardAlong(const Expr &g, const std::string &v) {
  if (g->kind != ExprKind::Binary || !isComparison(g->binOp) || !isInteger(g->args[0]->type)) return std::nullopt;
  std::optional<VarTerm> split = splitOnVar(sub(g->args[0], g->args[1]), v);
  if (!split || split->coef == 0) return std::nullopt;
  int64_t a = split->coef;
  Expr r = fromLinear(split->rest);
  // Normalise to a*v + r < 0.
  switch (g->binOp) {
  case BinOp::LT: break;
  case BinOp::LE: r = sub(r, intImm(1)); break;
  case BinOp::GT: a = -a, r = sub(intImm(0), r); break;
  case BinOp::GE: a = -a, r = sub(intImm(-1), r); break;
  default: return std::nullopt;
  }
  if (a > 0) // v < ceil(-r / a)
    return GuardRange{nullptr, simplify(floorDiv(add(sub(intImm(0), r), intImm(a - 1)), intImm(a)))};
  // -b*v + r < 0  <=>  v > r / b  <=>  v >= floor(r / b) + 1
  return GuardRange{simplify(add(floorDiv(r, intImm(-a)), intImm(1))), nullptr};
}

bool mentionsAny(const Expr &e, const std::set<std::string> &names) {
  bool found = false;
  visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Var && names.count(n->name); });
  return found;
}

std::set<std::string> namesBoundIn(const LStmtPtr &s) {
  std::set<std::string> inner{s->var};
  visitLStmt(s->body, [&](const LStmt &n) {
    if (n.kind == LStmt::Kind::For || n.kind == LStmt::Kind::Let) inner.insert(n.var);
  });
  return inner;
}

LStmtPtr loopSlice(const LStmt &proto, const Expr &begin, const Expr &end, LStmtPtr body) {
  auto s = std::make_shared<LStmt>(proto);
  s->min = simplify(begin);
  s->extent = simplify(sub(end, begin));
  s->body = std::move(body);
  return s;
}

Expr invariantGuards(const LStmtPtr &s, std::set<std::string> &texts) {
  const std::set<std::string> inner = namesBoundIn(s);
  Expr all;
  auto take = [&](const Expr &pred) {
    if (!pred) return;
    std::vector<Expr> parts;
    guardConjuncts(pred, parts);
    for (const Expr &g : parts)
      if (!mentionsAny(g, inner) && texts.insert(printExpr(g)).second)
        all = all ? binary(BinOp::And, all, g) : g;
  };
  visitLStmt(s->body, [&](const LStmt &n) {
    take(n.pred);
    for (const Expr &e : {n.value, n.cond})
      if (e) visitExpr(e, [&](const Expr &ld) { if (ld->kind == ExprKind::Load) take(ld->pred); });
    for (const Expr &i : n.indices) visitExpr(i, [&](const Expr &ld) { if (ld->kind == ExprKind::Load) take(ld->pred); });
  });
  return all;
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
