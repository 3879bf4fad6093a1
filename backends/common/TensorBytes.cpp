#include "backends/common/TensorBytes.h"

#include "backends/common/LowerExprToLLVM.h"

#include <llvm/IR/Intrinsics.h>

namespace tk::codegen {

llvm::Value *emitTensorBytes(CodegenContext &cg, const ir::TensorDecl &t) {
  auto &b = cg.b;
  llvm::Value *bytes = b.getInt64(ir::scalarTypeBytes(t.dtype));
  llvm::Value *bad = b.getFalse();
  for (const ir::Expr &d : t.shape) {
    llvm::Value *extent = lowerExprAs(cg, d, ir::ScalarType::I64);
    bad = b.CreateOr(bad, b.CreateICmpSLT(extent, b.getInt64(0)));
    llvm::Value *product = b.CreateBinaryIntrinsic(llvm::Intrinsic::smul_with_overflow, bytes, extent);
    bad = b.CreateOr(bad, b.CreateExtractValue(product, 1));
    bytes = b.CreateExtractValue(product, 0);
  }
  return b.CreateSelect(bad, b.getInt64(-1), bytes, t.name + ".bytes");
}

} // namespace tk::codegen
