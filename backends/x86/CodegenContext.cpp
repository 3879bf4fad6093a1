#include "backends/x86/CodegenContext.h"

#include "backends/x86/EmitVectorMath.h"

namespace tk::x86 {

CodegenContext::CodegenContext(llvm::Module &m, const CpuTarget &t, DiagEngine &d)
    : codegen::HostCodegenContext(m, codegen::HostCpu{t.triple, t.cpu, t.features, t.vectorBits}, d), target(t) {}

llvm::Value *CodegenContext::emitMath(ir::MathFn f, llvm::Value *x) {
  if (f == ir::MathFn::Exp && x->getType()->getScalarType()->isFloatTy()) return emitExpF32(b, x);
  return HostCodegenContext::emitMath(f, x);
}

} // namespace tk::x86
