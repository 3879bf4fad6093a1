// The x86 CodegenContext: the target-independent translation state
// (backends/common/CodegenContext.h) plus what CPU functions need — the
// target CPU, parallel-body outlining names, early exits that free heap
// buffers, and libm-based math. The translation steps (statements,
// parallel outlining, kernel signatures) are free functions over this
// state, one file each.
#pragma once
#include "backends/common/CodegenContext.h"
#include "backends/x86/X86Backend.h"

#include <set>

namespace tk::x86 {

using codegen::FunctionFrame;
using codegen::VarBinding;

class CodegenContext : public codegen::CodegenContext {
public:
  CodegenContext(llvm::Module &m, const CpuTarget &target, DiagEngine &diags);

  const CpuTarget &target;
  std::string kernelName; // names outlined bodies `<kernel>.par<N>`
  int outlinedCount = 0;
  // Functions that issued non-temporal stores (CacheHints.h): each ends
  // with a store fence.
  std::set<llvm::Function *> streaming;

  // Adds the function attributes every generated function carries (target
  // CPU/features so the optimizer's TTI and codegen agree, nounwind).
  void setFunctionAttributes(llvm::Function *fn);
  // Frees the live heap buffers and leaves the function with `status`. The
  // current block is then terminated: the caller moves the builder on.
  void emitEarlyExit(llvm::Value *status);
  // Leaves the function with `status` unless it is 0; the builder then
  // continues in a new block `<name>.ok`.
  void emitExitUnlessZero(llvm::Value *status, const std::string &name);
  // Alignment of every buffer a kernel allocates (stack or heap): a cache line.
  static constexpr int64_t kBufferAlign = 64;
  // A kBufferAlign-aligned heap block of `bytes` with a null check that
  // exits with status 3.
  llvm::Value *emitCheckedMalloc(llvm::Value *bytes, const std::string &name);
  void emitFree(llvm::Value *ptr);

  // f32 exp: inline polynomial (EmitVectorMath.h) so loops vectorize; other
  // exp log sqrt abs pow: LLVM intrinsics (inline code or libm); tanh and
  // erf: libm calls (users link -lm).
  llvm::Value *emitMath(ir::MathFn f, llvm::Value *x) override;
  llvm::Value *emitPow(llvm::Value *a, llvm::Value *b) override;
};

// ABI status codes (docs/abi.md).
constexpr int kStatusOutOfMemory = 3;

} // namespace tk::x86
