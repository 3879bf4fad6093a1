#include "scheduler/sunway/FuseTileEpilogues.h"

#include "ir/IRRewrite.h"
#include "ir/Reduction.h"
#include "ir/Simplify.h"
#include "scheduler/FreshNames.h"
#include "scheduler/InlineElementwise.h"

#include <algorithm>
#include <set>

namespace tk {
using namespace ir;

namespace {

// The loads of `t` in `e`.
std::vector<Expr> loadsOf(const Expr &e, const TensorDecl *t) {
  std::vector<Expr> out;
  visitExpr(e, [&](const Expr &n) {
    if (n->kind == ExprKind::Load && n->tensor.get() == t) out.push_back(n);
  });
  return out;
}

} // namespace

bool fuseTileEpilogueApplies(const Op &op, size_t index, std::string *reason) {
  auto no = [&](const char *why) {
    if (reason) *reason = why;
    return false;
  };
  const Assign &a = op.body.at(index);
  const TensorDecl *t = a.target.get();
  if (!writesWholeIntermediate(op, a, reason)) return false;
  if (!containsReduce(a.value) || !soleReduction(a.value, t->dtype))
    return no("its value is not one reduction in its target's type (or an element-wise function of one)");
  if (index + 1 >= op.body.size()) return no("no statement reads its target after it");
  for (size_t i = 0; i < op.body.size(); ++i)
    if (i != index && (op.body[i].target.get() == t || (i != index + 1 && readsTensor(op.body[i].value, t))))
      return no("a statement other than the next one writes or reads its target");
  const Assign &reader = op.body[index + 1];
  if (containsReduce(reader.value)) return no("the statement that reads it holds a reduction of its own");
  std::vector<Expr> reads = loadsOf(reader.value, t);
  if (reads.size() != 1 || reads[0]->pad || reads[0]->pred)
    return no("the next statement reads it more than once, or with `else`");
  if (reader.vars.size() != t->rank()) return no("the next statement's read of it is not a bijection");
  std::set<std::string> used;
  for (size_t d = 0; d < t->rank(); ++d) {
    const Expr &i = reads[0]->args[d];
    auto v = std::find_if(reader.vars.begin(), reader.vars.end(),
                          [&](const IndexVar &x) { return i->kind == ExprKind::Var && x.name == i->name; });
    if (v == reader.vars.end() || !used.insert(v->name).second ||
        !sameExpr(simplify(v->extent), simplify(t->shape[d])))
      return no("the next statement's read of it is not a bijection");
  }
  return true;
}

OpPtr fuseTileEpilogues(const OpPtr &op) {
  OpPtr out = op;
  for (size_t i = 0; i < out->body.size();) {
    if (!fuseTileEpilogueApplies(*out, i, nullptr)) {
      ++i;
      continue;
    }
    if (out == op) out = std::make_shared<Op>(*op);
    const Assign a = out->body[i];
    Assign &reader = out->body[i + 1];
    // The reduction's variables, renamed where the reader uses the name.
    FreshNames fresh(*out);
    Expr red = soleReduction(a.value, a.target->dtype);
    auto renamed = std::make_shared<ExprNode>(*red);
    std::vector<std::pair<std::string, Expr>> rename;
    for (IndexVar &v : renamed->rvars) {
      bool clash = std::any_of(reader.vars.begin(), reader.vars.end(), [&](const IndexVar &x) { return x.name == v.name; });
      if (!clash) continue;
      std::string name = fresh(v.name);
      rename.push_back({v.name, var(name, VarKind::Index, ScalarType::I64, v.loc)});
      v.name = name;
    }
    renamed->args[0] = substitute(red->args[0], rename);
    Expr value = transformExpr(a.value, [&](const Expr &n) -> Expr { return n == red ? Expr(renamed) : n; });
    if (value->type != a.target->dtype) value = cast(a.target->dtype, value, a.loc);
    Expr fused = substituteTarget(reader.value, a, value);
    if (!soleReduction(fused, reader.target->dtype)) {
      ++i; // the reader's type differs from the reduction's: keep both
      continue;
    }
    reader.value = fused;
    out->body.erase(out->body.begin() + static_cast<std::ptrdiff_t>(i));
    auto &im = out->intermediates;
    im.erase(std::remove(im.begin(), im.end(), a.target), im.end());
  }
  return out;
}

} // namespace tk
