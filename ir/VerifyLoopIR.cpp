#include "ir/VerifyLoopIR.h"

#include "ir/Diagnostics.h"
#include "ir/VerifyExpr.h"

namespace tk::ir {

static void verifyStmt(const LStmtPtr &s, const VerifyScope &scope) {
  if (!s) verifyFail(scope, "null statement");
  switch (s->kind) {
  case LStmt::Kind::Block:
    for (const LStmtPtr &c : s->stmts) verifyStmt(c, scope);
    return;
  case LStmt::Kind::For: {
    verifyExpr(s->min, scope);
    verifyExpr(s->extent, scope);
    if (s->forKind == ForKind::Parallel && !s->worker) verifyFail(scope, "parallel loop without a worker kind");
    VerifyScope inner = scope;
    inner.vars.insert(s->var);
    verifyStmt(s->body, inner);
    return;
  }
  case LStmt::Kind::Let: {
    verifyExpr(s->value, scope);
    VerifyScope inner = scope;
    inner.vars.insert(s->var);
    verifyStmt(s->body, inner);
    return;
  }
  case LStmt::Kind::Alloc: {
    if (!s->tensor) verifyFail(scope, "alloc without a tensor");
    for (const Expr &d : s->tensor->shape) verifyExpr(d, scope);
    VerifyScope inner = scope;
    inner.tensors.insert(s->tensor.get());
    verifyStmt(s->body, inner);
    return;
  }
  case LStmt::Kind::Store:
    verifyStore(s->tensor, s->indices, s->value, scope);
    if (s->pred) verifyExpr(s->pred, scope);
    return;
  case LStmt::Kind::If:
    verifyExpr(s->cond, scope);
    verifyStmt(s->thenS, scope);
    if (s->elseS) verifyStmt(s->elseS, scope);
    return;
  case LStmt::Kind::Check:
    verifyExpr(s->cond, scope);
    if ((s->errorCode < 1 || s->errorCode > 3) && !(s->tensor && s->errorCode == 8)) // 8: a write check
      verifyFail(scope, "check with error code " + std::to_string(s->errorCode));
    return;
  case LStmt::Kind::Barrier: return;
  case LStmt::Kind::Prefetch: // the element it names is checked as a read would be
    verifyExpr(load(s->tensor, s->indices), scope);
    return;
  case LStmt::Kind::Intrinsic:
    verifyIntrinsicOperands(s->intrinsic, s->operands, scope);
    return;
  }
}

void verifyLoopIR(const LoweredFunc &f, bool reductionsLowered) {
  if (!f.op) throw InternalError("loop IR function " + f.name + " has no op");
  VerifyScope scope = opScope(*f.op, "loop IR of function " + f.name);
  scope.allowReduce = !reductionsLowered;
  verifyStmt(f.body, scope);
}

} // namespace tk::ir
