#include "scheduler/cpu/FoldContractionConsumer.h"

#include "ir/IRMutator.h"
#include "ir/Reduction.h"
#include "ir/Simplify.h"
#include "scheduler/Refusal.h"

namespace tk {
using namespace ir;

namespace {

// g with each read of `t` replaced by `value`.
class InlineReads final : public ExprMutator {
public:
  InlineReads(const TensorDecl *t, Expr value) : t_(t), value_(std::move(value)) {}

protected:
  Expr mutateLoad(const Expr &e) override { return e->tensor.get() == t_ ? value_ : ExprMutator::mutateLoad(e); }

private:
  const TensorDecl *t_;
  Expr value_;
};

// Whether every read of `t` in `e` is t[vars...] exactly, unguarded.
bool readsAtOwnIndices(const Expr &e, const TensorDecl *t, const std::vector<IndexVar> &vars) {
  bool ok = true;
  visitExpr(e, [&](const Expr &n) {
    if (n->kind != ExprKind::Load || n->tensor.get() != t) return;
    if (n->pad || n->pred || n->args.size() != vars.size()) ok = false;
    for (size_t d = 0; ok && d < vars.size(); ++d)
      ok = n->args[d]->kind == ExprKind::Var && n->args[d]->name == vars[d].name;
  });
  return ok;
}

} // namespace

OpPtr foldContractionConsumer(const OpPtr &op, std::string *reason) {
  auto refused = [&](const char *why) {
    refuse(reason, why);
    return OpPtr();
  };
  if (op->body.size() != 2) return refused("the op is not two statements");
  const Assign &producer = op->body[0], &consumer = op->body[1];
  const TensorPtr &t = producer.target;
  // Y = sum ..; Y = g(Y): the in-place form, which writes no intermediate.
  bool inPlace = op->intermediates.empty() && consumer.target == t;
  if (!inPlace && (op->intermediates.size() != 1 || op->intermediates[0] != t || consumer.target == t))
    return refused("the op is not one intermediate statement and one output statement");
  if (!containsReduce(producer.value)) return refused("the first statement holds no reduction");
  if (containsReduce(consumer.value)) return refused("the second statement holds a reduction");
  if (producer.vars.size() != consumer.vars.size()) return refused("the statements have different ranks");
  for (size_t d = 0; d < producer.vars.size(); ++d)
    if (!sameExpr(simplify(producer.vars[d].extent), simplify(consumer.vars[d].extent)))
      return refused("the statements run over different extents");
  if (!readsAtOwnIndices(consumer.value, t.get(), consumer.vars))
    return refused("the second statement reads the intermediate at other indices or padded");
  // The producer's index variables become the consumer's; a reduction
  // variable of the same name as one of those would capture it.
  std::vector<std::pair<std::string, Expr>> rename;
  for (size_t d = 0; d < producer.vars.size(); ++d)
    rename.push_back({producer.vars[d].name, var(consumer.vars[d].name, VarKind::Index)});
  bool captured = false;
  visitExpr(producer.value, [&](const Expr &n) {
    if (n->kind == ExprKind::Reduce)
      for (const IndexVar &r : n->rvars)
        for (const IndexVar &w : consumer.vars) captured |= r.name == w.name;
  });
  if (captured) return refused("a reduction variable is named like an output index");
  Expr value = InlineReads(t.get(), substitute(producer.value, rename)).mutateExpr(consumer.value);
  auto folded = std::make_shared<Op>(*op);
  folded->intermediates.clear();
  folded->body = {Assign{consumer.target, consumer.vars, value, consumer.loc}};
  return folded;
}

} // namespace tk
