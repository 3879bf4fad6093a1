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
  const Assign &a = op.body.at(index);
  if (!writesWholeIntermediate(op, a, reason)) return false;
  const TensorDecl *t = a.target.get();
  auto no = [&](const char *why) {
    if (reason) *reason = why;
    return false;
  };
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
  return substituteStatements(op, [](const Op &o, size_t i) -> Expr {
    if (!fuseTileEpilogueApplies(o, i, nullptr)) return nullptr;
    const Assign &a = o.body[i], &reader = o.body[i + 1];
    // The reduction's variables, renamed where the reader uses the name.
    FreshNames fresh(o);
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
    // TileOutputs accumulates in the reader's target: a reader of another
    // type than the reduction's (or an integer one) keeps both statements.
    return isFloat(red->type) && red->type == reader.target->dtype ? value : nullptr;
  });
}

} // namespace tk
