#include "scheduler/InlineElementwise.h"

#include "ir/IRRewrite.h"
#include "ir/Reduction.h"
#include "ir/Simplify.h"

#include <algorithm>

namespace tk {
using namespace ir;

namespace {

// Whether `e` reads `t` with an `else` (or a guard): an element that may
// not exist.
bool readsPadded(const Expr &e, const TensorDecl *t) {
  bool found = false;
  visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Load && n->tensor.get() == t && (n->pad || n->pred); });
  return found;
}

} // namespace

bool writesWholeIntermediate(const Op &op, const Assign &a, std::string *reason) {
  auto no = [&](const char *why) {
    if (reason) *reason = why;
    return false;
  };
  const TensorDecl *t = a.target.get();
  if (!isIntermediateOf(op, t)) return no("its target is an output of the op");
  if (a.vars.size() != t->rank()) return no("it does not write every dimension of its target");
  for (size_t d = 0; d < a.vars.size(); ++d)
    if (!sameExpr(simplify(a.vars[d].extent), simplify(t->shape[d]))) return no("it writes only part of its target");
  return true;
}

OpPtr substituteStatements(const OpPtr &op, const std::function<Expr(const Op &, size_t)> &valueOf) {
  OpPtr out = op;
  for (size_t i = 0; i < out->body.size();) {
    Expr value = valueOf(*out, i);
    if (!value) {
      ++i;
      continue;
    }
    if (out == op) out = std::make_shared<Op>(*op);
    Assign a = out->body[i];
    for (Assign &reader : out->body)
      reader.value = transformExpr(reader.value, [&](const Expr &n) -> Expr {
        if (n->kind != ExprKind::Load || n->tensor != a.target) return n;
        std::vector<std::pair<std::string, Expr>> map;
        for (size_t d = 0; d < a.vars.size(); ++d) map.push_back({a.vars[d].name, n->args[d]});
        return substitute(value, map);
      });
    out->body.erase(out->body.begin() + static_cast<std::ptrdiff_t>(i));
    auto &im = out->intermediates;
    im.erase(std::remove(im.begin(), im.end(), a.target), im.end());
  }
  return out;
}

bool inlineElementwiseApplies(const Op &op, size_t index, std::string *reason) {
  auto no = [&](const char *why) {
    if (reason) *reason = why;
    return false;
  };
  const Assign &a = op.body.at(index);
  const TensorDecl *t = a.target.get();
  if (!writesWholeIntermediate(op, a, reason)) return false;
  if (containsReduce(a.value)) return no("its value holds a reduction (inlining would repeat it for every read)");
  if (readsTensor(a.value, t)) return no("its value reads its own target");
  for (size_t i = 0; i < op.body.size(); ++i) {
    if (i == index) continue;
    if (op.body[i].target.get() == t) return no("another statement writes its target too");
    if (readsPadded(op.body[i].value, t)) return no("a read of its target says what to read outside it (`else`)");
    if (i < index && readsTensor(op.body[i].value, t)) return no("a statement before it reads its target");
  }
  return true;
}

OpPtr inlineElementwise(const OpPtr &op) {
  return substituteStatements(op, [](const Op &o, size_t i) -> Expr {
    if (!inlineElementwiseApplies(o, i, nullptr)) return nullptr;
    const Assign &a = o.body[i];
    return a.value->type == a.target->dtype ? a.value : cast(a.target->dtype, a.value, a.loc);
  });
}

} // namespace tk
