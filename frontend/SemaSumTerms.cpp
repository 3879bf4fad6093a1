#include "frontend/SemaSumTerms.h"

#include <algorithm>
#include <functional>

namespace tk {

namespace {

bool mentionsAny(const ast::Expr &e, const std::vector<ast::ReduceVar> &vars) {
  if (e.kind == ast::ExprKind::Name &&
      std::any_of(vars.begin(), vars.end(), [&](const ast::ReduceVar &v) { return v.name == e.name; }))
    return true;
  for (const ast::ExprPtr &a : e.args)
    if (a && mentionsAny(*a, vars)) return true;
  return e.pad && mentionsAny(*e.pad, vars);
}

// The terms of e's top-level `+`/`-` chain (e itself when it is none).
void terms(const ast::Expr &e, bool top, std::vector<const ast::Expr *> &out) {
  bool chain = e.kind == ast::ExprKind::Binary && (e.op == "+" || e.op == "-") && (top || !e.parenthesized);
  if (!chain) {
    out.push_back(&e);
    return;
  }
  terms(*e.args[0], false, out);
  terms(*e.args[1], false, out);
}

} // namespace

void warnTermsOutsideSum(const ast::Expr &sum, DiagEngine &diags) {
  if (sum.name != "sum" || sum.args.empty() || !sum.args[0] || sum.args[0]->parenthesized) return;
  std::vector<const ast::Expr *> parts;
  terms(*sum.args[0], true, parts);
  if (parts.size() < 2) return;
  std::string names;
  for (const ast::ReduceVar &v : sum.rvars) names += (names.empty() ? "" : ", ") + v.name;
  for (const ast::Expr *t : parts)
    if (!mentionsAny(*t, sum.rvars))
      diags.warning(t->loc, "this term does not use {} but is inside 'sum({})', so it is added once per {}; "
                            "write '(sum({}) ...) + ...' to add it once, or 'sum({}) (...)' to keep it in the sum",
                    names, names, names, names, names);
}

} // namespace tk
