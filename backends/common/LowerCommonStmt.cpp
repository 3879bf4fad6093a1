#include "backends/common/LowerCommonStmt.h"

#include "backends/common/LowerExprToLLVM.h"

namespace tk::codegen {

using ir::ScalarType;

void lowerStore(CodegenContext &cg, const ir::LStmt &s) {
  const ir::TensorDecl &t = *s.tensor;
  auto emit = [&] {
    llvm::Value *v = lowerExprAs(cg, s.value, t.dtype);
    storeElement(cg, v, elementAddress(cg, t, s.indices), t.dtype);
  };
  if (s.pred)
    emitGuarded(cg, lowerExprAs(cg, s.pred, ScalarType::Bool), t.name + ".store", emit);
  else
    emit();
}

void lowerIf(CodegenContext &cg, const ir::LStmt &s, const StmtLowering &lowerBody) {
  llvm::Value *c = lowerExprAs(cg, s.cond, ScalarType::Bool);
  llvm::BasicBlock *thenBB = cg.newBlock("if.then");
  llvm::BasicBlock *elseBB = s.elseS ? cg.newBlock("if.else") : nullptr;
  llvm::BasicBlock *done = cg.newBlock("if.done");
  cg.b.CreateCondBr(c, thenBB, elseBB ? elseBB : done);
  cg.b.SetInsertPoint(thenBB);
  lowerBody(s.thenS);
  cg.b.CreateBr(done);
  if (elseBB) {
    cg.b.SetInsertPoint(elseBB);
    lowerBody(s.elseS);
    cg.b.CreateBr(done);
  }
  cg.b.SetInsertPoint(done);
}

void lowerLet(CodegenContext &cg, const ir::LStmt &s, const StmtLowering &lowerBody) {
  llvm::Value *v = lowerExpr(cg, s.value);
  cg.pushScope();
  cg.bind(s.var, {v, s.value->type});
  lowerBody(s.body);
  cg.popScope();
}

} // namespace tk::codegen
