#include "scheduler/ReassignedReads.h"

#include "ir/IRRewrite.h"
#include "ir/Simplify.h"
#include "ir/VerifyTensorIR.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace tk {
using namespace ir;

namespace {

// Whether the load `n` of a's target reads exactly the element a writes:
// index k provably equals a's index variable k.
bool sameElement(const ExprNode &n, const Assign &a) {
  if (n.args.size() != a.vars.size()) return false;
  for (size_t k = 0; k < n.args.size(); ++k) {
    Expr diff = simplify(sub(n.args[k], var(a.vars[k].name, VarKind::Index)));
    int64_t c;
    if (!isConstInt(diff, &c) || c != 0) return false;
  }
  return true;
}

// Every name the op uses (tensors, symbols, parameters, index and
// reduction variables), so a fresh tensor clashes with none of them.
std::set<std::string> usedNames(const Op &op) {
  std::set<std::string> used(op.symbols.begin(), op.symbols.end());
  for (const Param &p : op.inputs) used.insert(p.name);
  for (const TensorPtr &t : op.outputs) used.insert(t->name);
  for (const TensorPtr &t : op.intermediates) used.insert(t->name);
  for (const Assign &a : op.body) {
    for (const IndexVar &v : a.vars) used.insert(v.name);
    visitExpr(a.value, [&](const Expr &n) {
      if (n->kind == ExprKind::Var) used.insert(n->name);
      for (const IndexVar &v : n->rvars) used.insert(v.name);
    });
  }
  return used;
}

} // namespace

bool readsTargetElsewhere(const Assign &a) {
  // Loads under a reduction: the reduction may accumulate in the target.
  std::set<const ExprNode *> reduced;
  visitExpr(a.value, [&](const Expr &n) {
    if (n->kind == ExprKind::Reduce)
      visitExpr(n->args[0], [&](const Expr &m) { reduced.insert(m.get()); });
  });
  bool elsewhere = false;
  visitExpr(a.value, [&](const Expr &n) {
    if (n->kind == ExprKind::Load && n->tensor == a.target)
      elsewhere |= reduced.count(n.get()) || !sameElement(*n, a);
  });
  return elsewhere;
}

OpPtr separateReassignedReads(const OpPtr &op) {
  bool any = false;
  for (const Assign &a : op->body) any |= readsTargetElsewhere(a);
  if (!any) return op;

  auto out = std::make_shared<Op>(*op);
  std::set<std::string> used = usedNames(*op);
  // Walking backwards: the buffer that holds each tensor's version live at
  // this point (absent: the tensor itself, which keeps the final version).
  std::map<const TensorDecl *, TensorPtr> current;
  auto bufferOf = [&](const TensorPtr &t) {
    auto it = current.find(t.get());
    return it == current.end() ? t : it->second;
  };
  std::vector<TensorPtr> fresh;
  for (size_t s = out->body.size(); s-- > 0;) {
    Assign &a = out->body[s];
    const TensorPtr original = a.target;
    TensorPtr written = bufferOf(original);
    TensorPtr previous = written;
    if (readsTargetElsewhere(a)) {
      auto t = std::make_shared<TensorDecl>(*original);
      t->role = TensorRole::Intermediate;
      t->scope = Scope::Global;
      t->name = original->name + "_prev";
      for (int i = 1; used.count(t->name); ++i) t->name = fmt::format("{}_prev_{}", original->name, i);
      used.insert(t->name);
      fresh.push_back(t);
      previous = t;
    }
    // The value reads the version before this statement; for every other
    // tensor that is the version live after it.
    current[original.get()] = previous;
    a.target = written;
    a.value = transformExpr(a.value, [&](const Expr &n) -> Expr {
      if (n->kind != ExprKind::Load) return n;
      TensorPtr b = bufferOf(n->tensor);
      if (b == n->tensor) return n;
      auto renamed = std::make_shared<ExprNode>(*n);
      renamed->tensor = b;
      return renamed;
    });
  }
  // In statement order, so allocations print in the order they are used.
  out->intermediates.insert(out->intermediates.end(), fresh.rbegin(), fresh.rend());
  verifyTensorIR(*out);
  return out;
}

} // namespace tk
