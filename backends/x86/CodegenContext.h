// The x86 CodegenContext: the host ABI state shared with every host
// function (backends/common/HostCodegenContext.h: early exits that free heap
// buffers, checked allocation, function attributes, CPU math) plus what CPU
// kernels need — the target CPU, parallel-body outlining names, streaming
// stores, and the vectorizable f32 exp. The translation steps (statements,
// parallel outlining, kernel signatures) are free functions over this
// state, one file each.
#pragma once
#include "backends/common/HostCodegenContext.h"
#include "backends/x86/X86Backend.h"

#include <set>

namespace tk::x86 {

using codegen::FunctionFrame;
using codegen::VarBinding;

class CodegenContext : public codegen::HostCodegenContext {
public:
  CodegenContext(llvm::Module &m, const CpuTarget &target, DiagEngine &diags);

  const CpuTarget &target;
  std::string kernelName; // names outlined bodies `<kernel>.par<N>`
  int outlinedCount = 0;
  int outlinedCalls = 0; // names other outlined functions (OutlineCall.h)
  // Functions that issued non-temporal stores (CacheHints.h), or called an
  // outlined function that did (OutlineCall.h): each ends with a store fence.
  std::set<llvm::Function *> streaming;

  // f32 exp, log, tanh and erf: inline polynomials (EmitVectorMath.h) so
  // loops vectorize; sqrt, rsqrt (1 / sqrt, both IEEE operations), abs and
  // every f64/f16/bf16 function as every host function computes them
  // (HostCodegenContext::emitMath).
  llvm::Value *emitMath(ir::MathFn f, llvm::Value *x) override;
};

} // namespace tk::x86
