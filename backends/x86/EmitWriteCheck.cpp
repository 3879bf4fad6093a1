#include "backends/x86/EmitWriteCheck.h"

#include "backends/common/LowerExprToLLVM.h"

namespace tk::x86 {

void emitWriteCheck(CodegenContext &cg, const ir::LStmt &s) {
  // The record is [2, shape of the output...] (InstrumentMappingChecks.h).
  const ir::TensorDecl &counts = *s.tensor;
  llvm::IRBuilder<> &b = cg.b;
  llvm::Type *i64 = b.getInt64Ty();
  size_t rank = counts.rank() - 1;
  llvm::ArrayType *shapeType = llvm::ArrayType::get(i64, std::max<size_t>(rank, 1));
  llvm::AllocaInst *shape = cg.entryAlloca(shapeType, counts.name + ".shape");
  for (size_t d = 0; d < rank; ++d)
    b.CreateStore(codegen::lowerExprAs(cg, counts.shape[d + 1], ir::ScalarType::I64),
                  b.CreateConstInBoundsGEP2_64(shapeType, shape, 0, d));
  llvm::Type *ptr = b.getPtrTy();
  auto *type = llvm::FunctionType::get(b.getInt32Ty(), {ptr, i64, ptr, ptr}, false);
  llvm::Value *status = b.CreateCall(cg.runtimeFunction("tkrt_check_writes", type),
                                     {b.CreateGlobalStringPtr(s.var, s.var + ".name"),
                                      b.getInt64(static_cast<int64_t>(rank)), shape, cg.buffer(counts)});
  cg.emitExitUnlessZero(status, "writecheck");
}

} // namespace tk::x86
