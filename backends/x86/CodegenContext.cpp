#include "backends/x86/CodegenContext.h"

#include "backends/x86/EmitVectorMath.h"

namespace tk::x86 {

CodegenContext::CodegenContext(llvm::Module &m, const CpuTarget &t, DiagEngine &d)
    : codegen::HostCodegenContext(m, codegen::HostCpu{t.triple, t.cpu, t.features, t.vectorBits}, d), target(t) {}

llvm::Value *CodegenContext::emitMath(ir::MathFn f, llvm::Value *x) {
  if (!x->getType()->getScalarType()->isFloatTy()) return HostCodegenContext::emitMath(f, x);
  switch (f) {
  case ir::MathFn::Exp: return emitExpF32(b, x);
  case ir::MathFn::Log: return emitLogF32(b, x);
  case ir::MathFn::Tanh: return emitTanhF32(b, x);
  case ir::MathFn::Erf: return emitErfF32(b, x);
  default: return HostCodegenContext::emitMath(f, x);
  }
}

} // namespace tk::x86
