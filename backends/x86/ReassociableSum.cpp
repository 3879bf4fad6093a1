#include "backends/x86/ReassociableSum.h"

#include "backends/common/LowerExprToLLVM.h"
#include "backends/x86/MatchContraction.h"

namespace tk::x86 {

using ir::Expr;
using ir::ExprKind;
using ir::mentionsVar;
using ir::LStmt;

const LStmt *matchReassociableSum(const LStmt &loop, std::string *reason) {
  auto fail = [&](const char *why) -> const LStmt * {
    if (reason) *reason = why;
    return nullptr;
  };
  if (loop.kind != LStmt::Kind::For || loop.forKind != ir::ForKind::Serial) return fail("not a serial loop");
  const LStmt *s = ir::soleStmt(loop.body.get());
  if (!s || s->kind != LStmt::Kind::Store) return fail("the loop body is not a single store");
  const ir::TensorDecl &acc = *s->tensor;
  if (acc.scope != ir::Scope::Register || !ir::isFloat(acc.dtype))
    return fail("the accumulator is not a floating-point register element");
  if (s->pred) return fail("the store is guarded");
  for (const Expr &i : s->indices)
    if (mentionsVar(i, loop.var)) return fail("the stored element moves with the loop");
  const Expr &v = s->value;
  if (v->kind != ExprKind::Binary || v->binOp != ir::BinOp::Add) return fail("the stored value is not T + E");
  const Expr &a = v->args[0];
  bool same = a->kind == ExprKind::Load && a->tensor == s->tensor && !a->pred && a->args.size() == s->indices.size();
  for (size_t d = 0; same && d < a->args.size(); ++d) same = ir::sameExpr(a->args[d], s->indices[d]);
  if (!same) return fail("the stored value does not start with the stored element");
  bool readsAcc = false;
  ir::visitExpr(v->args[1], [&](const Expr &n) { readsAcc |= n->kind == ExprKind::Load && n->tensor == s->tensor; });
  if (readsAcc) return fail("the summand reads the accumulator");
  return s;
}

void emitReassociableSum(CodegenContext &cg, const LStmt &loop, const LStmt &store) {
  const ir::TensorDecl &t = *store.tensor;
  llvm::Value *begin = codegen::lowerExprAs(cg, loop.min, ir::ScalarType::I64);
  llvm::Value *end = cg.b.CreateAdd(begin, codegen::lowerExprAs(cg, loop.extent, ir::ScalarType::I64));
  cg.emitLoop(begin, end, loop.var, {}, [&](llvm::Value *iv) {
    cg.pushScope();
    cg.bind(loop.var, {iv, ir::ScalarType::I64});
    llvm::Value *addr = codegen::elementAddress(cg, t, store.indices);
    llvm::Value *acc = codegen::lowerExprAs(cg, store.value->args[0], t.dtype);
    llvm::Value *e = codegen::lowerExprAs(cg, store.value->args[1], t.dtype);
    llvm::Value *sum = cg.b.CreateFAdd(acc, e);
    if (auto *inst = llvm::dyn_cast<llvm::Instruction>(sum)) inst->setHasAllowReassoc(true);
    codegen::storeElement(cg, sum, addr, t.dtype);
    cg.popScope();
  });
}

} // namespace tk::x86
