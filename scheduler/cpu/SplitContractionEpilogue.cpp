#include "scheduler/cpu/SplitContractionEpilogue.h"

#include "ir/IRRewrite.h"
#include "ir/IRVisitor.h"

#include <set>

namespace tk {
using namespace ir;

OpPtr splitContractionEpilogue(const OpPtr &op) {
  if (op->body.size() != 1) return nullptr;
  const Assign &a = op->body[0];
  Expr sum;
  int reductions = 0;
  visitExpr(a.value, [&](const Expr &n) {
    if (n->kind != ExprKind::Reduce) return;
    ++reductions;
    sum = n;
  });
  if (reductions != 1 || sum == a.value) return nullptr;

  // A name no tensor of the op has.
  std::set<std::string> taken;
  for (const Param &p : op->inputs) taken.insert(p.name);
  for (const TensorPtr &t : op->outputs) taken.insert(t->name);
  for (const TensorPtr &t : op->intermediates) taken.insert(t->name);
  std::string name = a.target->name + "_sum";
  while (taken.count(name)) name += "_";

  auto t = std::make_shared<TensorDecl>();
  t->name = name;
  t->dtype = sum->type;
  t->shape = a.target->shape;
  t->scope = Scope::Global;
  t->role = TensorRole::Intermediate;
  t->loc = a.loc;
  std::vector<Expr> at;
  for (const IndexVar &v : a.vars) at.push_back(var(v.name, VarKind::Index, ScalarType::I64, v.loc));
  Expr read = load(t, at, nullptr, nullptr, sum->loc);
  Expr epilogue = transformExpr(a.value, [&](const Expr &n) { return n == sum ? read : n; });

  auto split = std::make_shared<Op>(*op);
  split->intermediates.push_back(t);
  split->body = {Assign{t, a.vars, sum, a.loc}, Assign{a.target, a.vars, epilogue, a.loc}};
  return split;
}

} // namespace tk
