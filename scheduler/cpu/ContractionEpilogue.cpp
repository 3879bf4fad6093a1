#include "scheduler/cpu/ContractionEpilogue.h"

#include "ir/IRMutator.h"
#include "ir/IRRewrite.h"
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
  Expr found;
  int count = 0;
  visitExpr(a.value, [&](const Expr &e) {
    if (e->kind == ExprKind::Reduce && count++ == 0) found = e;
  });
  return count == 1 ? found : nullptr;
}

bool epilogueApplies(const Assign &a, const Expr &sum, std::string *reason) {
  if (sum == a.value) return true;
  if (sum->type != a.target->dtype) return refuse(reason, "the sum is not of the output's type");
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
  size_t rank = a.vars.size();
  Expr g = ReplaceSum(load(a.target, idx)).mutateExpr(a.value);
  g = substitute(g, {{a.vars[rank - 2].name, row}, {a.vars[rank - 1].name, col}});
  return mStore(a.target, idx, g, AccumOp::None, a.loc);
}

} // namespace tk
