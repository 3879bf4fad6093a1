#include "scheduler/cpu/ContractionEpilogue.h"

#include "ir/IRMutator.h"
#include "ir/IRRewrite.h"
#include "ir/Simplify.h"
#include "scheduler/Refusal.h"

namespace tk {
using namespace ir;

namespace {

// g with its one Reduce node replaced by `value`.
class ReplaceSum final : public ExprMutator {
public:
  explicit ReplaceSum(Expr value) : value_(std::move(value)) {}

protected:
  Expr mutateReduce(const Expr &) override { return value_; }

private:
  Expr value_;
};

} // namespace

Expr contractionSum(const Assign &a) {
  // Distinct nodes: a folded consumer that read the sum twice (x * sigmoid(x))
  // holds the same node twice.
  Expr found;
  bool several = false;
  visitExpr(a.value, [&](const Expr &e) {
    if (e->kind != ExprKind::Reduce) return;
    if (found && found != e) several = true;
    found = e;
  });
  return several ? nullptr : found;
}

bool epilogueApplies(const Assign &a, const Expr &sum, std::string *reason, bool sumsInOutput) {
  if (sum == a.value) return true;
  if (sumsInOutput && sum->type != a.target->dtype) return refuse(reason, "the sum is not of the output's type");
  bool readsTarget = false, other = false;
  visitExpr(ReplaceSum(intImm(0)).mutateExpr(a.value), [&](const Expr &e) {
    if (e->kind == ExprKind::Load && e->tensor == a.target) readsTarget = true;
    if (e->kind == ExprKind::Shuffle || e->kind == ExprKind::Hole) other = true;
  });
  if (readsTarget) return refuse(reason, "the value around the sum reads the output, which the sum overwrites");
  if (other) return refuse(reason, "the value around the sum is not element-wise");
  return true;
}

MStmtPtr epilogueStore(const Assign &a, const Expr &sum, const std::vector<Expr> &idx, const Expr &row,
                       const Expr &col) {
  return epilogueStoreOf(a, sum, idx, load(a.target, idx), row, col);
}

MStmtPtr epilogueStoreOf(const Assign &a, const Expr &, const std::vector<Expr> &idx, const Expr &value,
                         const Expr &row, const Expr &col) {
  size_t rank = a.vars.size();
  Expr g = ReplaceSum(value).mutateExpr(a.value);
  g = substitute(g, {{a.vars[rank - 2].name, row}, {a.vars[rank - 1].name, col}});
  return mStore(a.target, idx, g, AccumOp::None, a.loc);
}

Expr sumNeededInBox(const Assign &a, const Expr &sum, const Expr &r0, int64_t rows, const Expr &c0, int64_t cols) {
  const Expr &g = a.value;
  if (g->kind != ExprKind::Select || rows < 1 || cols < 1) return nullptr;
  bool sumInThen = g->args[1] == sum;
  if (!sumInThen && g->args[2] != sum) return nullptr;
  const Expr &c = g->args[0];
  if (c->kind != ExprKind::Binary || c->type != ScalarType::Bool) return nullptr;
  // The condition as f <= 0 over the integers.
  Expr lhs = c->args[0], rhs = c->args[1];
  if (isFloat(lhs->type)) return nullptr;
  Expr f;
  switch (c->binOp) {
  case BinOp::LE: f = binary(BinOp::Sub, lhs, rhs); break;
  case BinOp::LT: f = binary(BinOp::Add, binary(BinOp::Sub, lhs, rhs), intImm(1)); break;
  case BinOp::GE: f = binary(BinOp::Sub, rhs, lhs); break;
  case BinOp::GT: f = binary(BinOp::Add, binary(BinOp::Sub, rhs, lhs), intImm(1)); break;
  default: return nullptr;
  }
  size_t rank = a.vars.size();
  const std::string &i = a.vars[rank - 2].name, &j = a.vars[rank - 1].name;
  std::optional<VarTerm> fi = splitOnVar(f, i);
  if (!fi) return nullptr;
  std::optional<VarTerm> fj = splitOnVar(fromLinear(fi->rest), j);
  if (!fj) return nullptr;
  Expr rest = fromLinear(fj->rest);
  // Other index variables (batch) may not appear: the box spans only i, j.
  for (size_t d = 0; d + 2 < rank; ++d)
    if (mentionsVar(rest, a.vars[d].name)) return nullptr;
  // The extreme of f over the box: each variable at the end its
  // coefficient's sign favours (f is linear, so the corners bound it).
  auto extreme = [&](bool lowest) {
    auto term = [&](int64_t coef, const Expr &base, int64_t span) {
      bool atStart = (coef > 0) == lowest;
      return binary(BinOp::Mul, intImm(coef), atStart ? base : binary(BinOp::Add, base, intImm(span - 1)));
    };
    return binary(BinOp::Add, rest, binary(BinOp::Add, term(fi->coef, r0, rows), term(fj->coef, c0, cols)));
  };
  // Sum in the then branch: needed unless c fails everywhere (min f >= 1);
  // in the else branch: unless c holds everywhere (max f <= 0).
  Expr needed = sumInThen ? binary(BinOp::LE, extreme(true), intImm(0)) : binary(BinOp::GE, extreme(false), intImm(1));
  return simplify(needed);
}

} // namespace tk
