#include "ir/VerifyTensorIR.h"

#include "ir/VerifyExpr.h"

#include <fmt/format.h>

namespace tk::ir {

void verifyTensorIR(const Op &op) {
  VerifyScope scope = opScope(op, "tensor IR of op " + op.name);
  auto shapes = [&](const TensorPtr &t) {
    for (const Expr &d : t->shape) verifyExpr(d, scope);
  };
  for (const Param &p : op.inputs)
    if (!p.isScalar()) shapes(p.tensor);
  for (const TensorPtr &t : op.outputs) shapes(t);
  for (const TensorPtr &t : op.intermediates) shapes(t);
  for (const Constraint &c : op.where) verifyExpr(c.cond, scope);
  for (const Assign &a : op.body) {
    if (!a.target || !scope.tensors.count(a.target.get())) verifyFail(scope, "assignment to an unknown tensor");
    if (a.target->role == TensorRole::Input) verifyFail(scope, "assignment to input " + a.target->name);
    if (a.vars.size() != a.target->rank())
      verifyFail(scope, fmt::format("assignment to {} with {} index variables, rank {}", a.target->name, a.vars.size(),
                                    a.target->rank()));
    VerifyScope inner = scope;
    for (const IndexVar &v : a.vars) {
      verifyExpr(v.extent, scope);
      inner.vars.insert(v.name);
    }
    verifyExpr(a.value, inner);
  }
}

} // namespace tk::ir
