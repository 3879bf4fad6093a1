#include "scheduler/IndexRange.h"

#include "ir/Simplify.h"
#include "scheduler/DropGuards.h"

namespace tk {
using namespace ir;

namespace {

bool mentionsAny(const Expr &e, const std::map<std::string, const LStmt *> &loops, const std::set<std::string> &bound) {
  bool found = false;
  visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Var && (loops.count(n->name) || bound.count(n->name)); });
  return found;
}

// `a OP b` as the text of the linear form f with the condition f >= 0.
std::optional<std::string> nonNegativeForm(const Expr &c) {
  if (c->kind != ExprKind::Binary || !isComparison(c->binOp) || !isInteger(c->args[0]->type)) return std::nullopt;
  const Expr &a = c->args[0], &b = c->args[1];
  Expr f;
  switch (c->binOp) {
  case BinOp::LT: f = sub(sub(b, a), intImm(1)); break;
  case BinOp::LE: f = sub(b, a); break;
  case BinOp::GT: f = sub(sub(a, b), intImm(1)); break;
  case BinOp::GE: f = sub(a, b); break;
  default: return std::nullopt;
  }
  return printExpr(fromLinear(linearize(simplify(f))));
}

} // namespace

std::optional<IndexRange> affineRange(const Expr &e, const std::map<std::string, const LStmt *> &loops,
                                      const std::set<std::string> &bound) {
  LinearForm f = linearize(simplify(e));
  LinearForm fixed;
  fixed.constant = f.constant;
  Expr lo, hi;
  for (const auto &[atom, coef] : f.terms) {
    if (!mentionsAny(atom, loops, bound)) {
      fixed.terms.push_back({atom, coef});
      continue;
    }
    auto it = atom->kind == ExprKind::Var ? loops.find(atom->name) : loops.end();
    if (it == loops.end()) return std::nullopt;
    const LStmt &l = *it->second;
    if (mentionsAny(l.min, loops, bound) || mentionsAny(l.extent, loops, bound)) return std::nullopt;
    Expr first = mul(l.min, intImm(coef));
    Expr last = mul(sub(add(l.min, l.extent), intImm(1)), intImm(coef));
    lo = lo ? add(lo, coef > 0 ? first : last) : (coef > 0 ? first : last);
    hi = hi ? add(hi, coef > 0 ? last : first) : (coef > 0 ? last : first);
  }
  Expr base = fromLinear(fixed);
  return IndexRange{simplify(lo ? add(base, lo) : base), simplify(hi ? add(base, hi) : base)};
}

bool guardOnlyBounds(const Expr &ld) {
  if (ld->kind != ExprKind::Load) return false;
  if (!ld->pred) return true;
  std::set<std::string> bounds;
  for (size_t d = 0; d < ld->args.size(); ++d)
    for (const Expr &c : {binary(BinOp::LE, intImm(0), ld->args[d]), binary(BinOp::LT, ld->args[d], ld->tensor->shape[d])})
      if (auto form = nonNegativeForm(c)) bounds.insert(*form);
  std::vector<Expr> parts;
  guardConjuncts(ld->pred, parts);
  for (const Expr &c : parts) {
    auto form = nonNegativeForm(c);
    if (!form || !bounds.count(*form)) return false;
  }
  return true;
}

} // namespace tk
