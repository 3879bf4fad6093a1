#include "scheduler/cpu/MergeReductionVars.h"

#include "ir/IRMutator.h"
#include "ir/Simplify.h"
#include "scheduler/Refusal.h"
#include "scheduler/cpu/ContractionEpilogue.h"

namespace tk {
using namespace ir;

namespace {

bool isVar(const Expr &e, const std::string &name) { return e->kind == ExprKind::Var && e->name == name; }

// Whether every mention of a or b in `body` is a plain index of a read
// without padding or guard, and every read mentioning one holds [a, b] at
// adjacent positions whose second dimension has extent bExtent.
bool mergeable(const Expr &body, const std::string &a, const std::string &b, const Expr &bExtent) {
  bool ok = true;
  // Mentions in reads that satisfy the rule are counted; all mentions must be.
  int allowed = 0, mentions = 0;
  visitExpr(body, [&](const Expr &n) {
    if (n->kind == ExprKind::Var && (n->name == a || n->name == b)) ++mentions;
    if (n->kind != ExprKind::Load) return;
    bool hasA = false, hasB = false;
    for (const Expr &i : n->args) hasA |= mentionsVar(i, a), hasB |= mentionsVar(i, b);
    if (!hasA && !hasB) return;
    bool pair = false;
    for (size_t d = 0; d + 1 < n->args.size() && !pair; ++d)
      pair = isVar(n->args[d], a) && isVar(n->args[d + 1], b) &&
             sameExpr(simplify(n->tensor->shape[d + 1]), simplify(bExtent));
    if (!pair || n->pad || n->pred) ok = false;
    else allowed += 2;
  });
  return ok && allowed == mentions;
}

// Reads [.., a, b, ..] become [.., r / B, r % B, ..].
class MergePair final : public ExprMutator {
public:
  MergePair(std::string a, std::string b, Expr r, Expr bExtent)
      : a_(std::move(a)), b_(std::move(b)), r_(std::move(r)), bExtent_(std::move(bExtent)) {}

protected:
  Expr mutateLoad(const Expr &e) override {
    for (size_t d = 0; d + 1 < e->args.size(); ++d)
      if (isVar(e->args[d], a_) && isVar(e->args[d + 1], b_)) {
        std::vector<Expr> args = e->args;
        args[d] = floorDiv(r_, bExtent_);
        args[d + 1] = floorMod(r_, bExtent_);
        return load(e->tensor, args, e->pad, e->pred, e->loc);
      }
    return e;
  }

private:
  std::string a_, b_;
  Expr r_, bExtent_;
};

// Replaces node `from` in `e` by `to`.
class ReplaceNode final : public ExprMutator {
public:
  ReplaceNode(Expr from, Expr to) : from_(std::move(from)), to_(std::move(to)) {}
  Expr mutateExpr(const Expr &e) override { return e == from_ ? to_ : ExprMutator::mutateExpr(e); }

private:
  Expr from_, to_;
};

// One merge of a pair of `red`'s variables; null when none merges.
Expr mergeOnce(const Expr &red, const Assign &a) {
  const std::vector<IndexVar> &vs = red->rvars;
  for (size_t x = 0; x < vs.size(); ++x)
    for (size_t y = 0; y < vs.size(); ++y) {
      if (x == y || !mergeable(red->args[0], vs[x].name, vs[y].name, vs[y].extent)) continue;
      // A fresh name: not an output index, not another reduction variable.
      std::string name = vs[x].name + vs[y].name;
      auto taken = [&](const std::string &n) {
        for (const IndexVar &v : a.vars)
          if (v.name == n) return true;
        for (const IndexVar &v : vs)
          if (v.name == n) return true;
        return false;
      };
      while (taken(name)) name += "_";
      Expr r = var(name, VarKind::Index, ScalarType::I64, vs[x].loc);
      std::vector<IndexVar> merged;
      for (size_t k = 0; k < vs.size(); ++k) {
        if (k == y) continue;
        merged.push_back(k == x ? IndexVar{name, simplify(mul(vs[x].extent, vs[y].extent)), vs[x].loc} : vs[k]);
      }
      Expr body = MergePair(vs[x].name, vs[y].name, r, vs[y].extent).mutateExpr(red->args[0]);
      return reduce(red->reduceOp, merged, body, red->loc);
    }
  return nullptr;
}

} // namespace

OpPtr mergeReductionVars(const OpPtr &op, std::string *reason) {
  if (op->body.size() != 1) return refuse(reason, "the op has more than one statement"), nullptr;
  const Assign &a = op->body[0];
  Expr red = contractionSum(a);
  if (!red || red->reduceOp != ReduceOp::Sum || red->rvars.size() < 2)
    return refuse(reason, "the statement holds no sum over several variables"), nullptr;
  Expr merged = red;
  while (merged->rvars.size() > 1)
    if (Expr next = mergeOnce(merged, a)) merged = next;
    else break;
  if (merged == red) return refuse(reason, "no two reduction variables are adjacent indices of every read"), nullptr;
  auto out = std::make_shared<Op>(*op);
  out->body[0].value = ReplaceNode(red, merged).mutateExpr(a.value);
  return out;
}

} // namespace tk
