#include "ir/VerifyExpr.h"

#include "ir/Diagnostics.h"

namespace tk::ir {

VerifyScope opScope(const Op &op, std::string where) {
  VerifyScope s;
  s.where = std::move(where);
  for (const std::string &sym : op.symbols) s.vars.insert(sym);
  for (const Param &p : op.inputs) {
    if (p.isScalar()) s.vars.insert(p.name);
    else s.tensors.insert(p.tensor.get());
  }
  for (const TensorPtr &t : op.outputs) s.tensors.insert(t.get());
  for (const TensorPtr &t : op.intermediates) s.tensors.insert(t.get());
  return s;
}

void verifyFail(const VerifyScope &scope, const std::string &what) {
  throw InternalError(scope.where + ": " + what);
}

static void check(const Expr &e, const VerifyScope &scope, const Expr &root) {
  if (!e) verifyFail(scope, "null expression inside `" + printExpr(root) + "`");
  auto fail = [&](const std::string &what) { verifyFail(scope, what + " in `" + printExpr(root) + "`"); };
  switch (e->kind) {
  case ExprKind::Var:
    if (!scope.vars.count(e->name)) fail("unbound variable '" + e->name + "'");
    break;
  case ExprKind::Hole:
    if (!scope.holeIds.count(e->holeId)) fail("unfilled or undeclared hole ?" + std::to_string(e->holeId));
    break;
  case ExprKind::Load:
    if (!e->tensor || !scope.tensors.count(e->tensor.get()))
      fail("load of tensor '" + (e->tensor ? e->tensor->name : std::string("<null>")) + "' not in scope");
    if (e->args.size() != e->tensor->rank())
      fail("load of " + e->tensor->name + " with " + std::to_string(e->args.size()) + " indices, rank " +
           std::to_string(e->tensor->rank()));
    break;
  case ExprKind::Reduce: {
    if (!scope.allowReduce) fail("reduction left after reduction lowering");
    if (e->args.size() != 1) fail("malformed reduction");
    VerifyScope inner = scope;
    for (const IndexVar &v : e->rvars) {
      if (v.extent) check(v.extent, scope, root);
      inner.vars.insert(v.name);
    }
    check(e->args[0], inner, root);
    return;
  }
  case ExprKind::Unary:
  case ExprKind::Call:
  case ExprKind::Cast:
    if (e->args.size() != 1) fail("malformed unary node");
    break;
  case ExprKind::Binary:
    if (e->args.size() != 2) fail("malformed binary node");
    break;
  case ExprKind::Shuffle:
    if (e->args.size() != 2 || !isInteger(e->args[1]->type)) fail("malformed warp shuffle");
    break;
  case ExprKind::Select:
    if (e->args.size() != 3) fail("malformed select");
    break;
  default: break;
  }
  for (const Expr &a : e->args) check(a, scope, root);
  if (e->pad) check(e->pad, scope, root);
  if (e->pred) check(e->pred, scope, root);
}

void verifyExpr(const Expr &e, const VerifyScope &scope) { check(e, scope, e); }

void verifyStore(const TensorPtr &t, const std::vector<Expr> &indices, const Expr &value,
                 const VerifyScope &scope) {
  if (!t || !scope.tensors.count(t.get())) verifyFail(scope, "store to a tensor not in scope");
  if (t->role == TensorRole::Input) verifyFail(scope, "store to input " + t->name);
  if (indices.size() != t->rank()) verifyFail(scope, "store rank mismatch on " + t->name);
  for (const Expr &i : indices) verifyExpr(i, scope);
  verifyExpr(value, scope);
}

void verifyIntrinsicOperands(GpuIntrinsic kind, const std::vector<Expr> &operands, const VerifyScope &scope) {
  for (size_t i = 0; i < operands.size(); ++i) {
    const Expr &o = operands[i];
    if (kind == GpuIntrinsic::AtomicAdd && i == 1 && o) {
      verifyExpr(o, scope);
      continue;
    }
    if (!o || (o->kind != ExprKind::Load && o->kind != ExprKind::IntImm))
      verifyFail(scope, "intrinsic operand is neither a tensor element nor a constant");
    verifyExpr(o, scope);
  }
}


} // namespace tk::ir
