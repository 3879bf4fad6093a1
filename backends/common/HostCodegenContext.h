// HostCodegenContext: the translation state of functions that run on the
// host CPU and follow the C ABI of docs/abi.md. CPU exports (backends/x86)
// and the host side of cuda exports (backends/nvptx) share it: the CPU named
// in every function's attributes, early exits that free the live heap
// buffers, checked allocation through the runtime, the status codes the
// generated code returns, and CPU math (LLVM intrinsics and libm).
#pragma once
#include "backends/common/CodegenContext.h"

#include <string>

namespace tk::codegen {

// ABI status code (docs/abi.md) that generated host code returns itself when
// a buffer cannot be allocated or its size overflows.
constexpr int kStatusOutOfMemory = 3;

// The CPU host functions are compiled for.
struct HostCpu {
  std::string triple;   // e.g. x86_64-pc-linux-gnu
  std::string cpu;      // LLVM CPU name, e.g. x86-64-v3
  std::string features; // LLVM feature string ("" = the CPU's own)
  int vectorBits = 128; // the vector width the loop vectorizer should use
};

// Baseline x86-64 (SSE2) Linux: the host of cuda objects, which only check
// arguments and call the launcher and must not depend on the build machine.
HostCpu baselineX86Host();

// Registers LLVM's x86 target (once per process; later calls do nothing).
void initializeX86LLVMTarget();

class HostCodegenContext : public CodegenContext {
public:
  HostCodegenContext(llvm::Module &m, HostCpu cpu, DiagEngine &diags);

  const HostCpu hostCpu;

  // Adds the function attributes every generated host function carries
  // (target CPU/features so the optimizer's TTI and codegen agree, the
  // preferred vector width, nounwind).
  void setFunctionAttributes(llvm::Function *fn);
  // Frees the live heap buffers and leaves the function with `status` (or
  // stores it to the frame's statusOut). The current block is then
  // terminated: the caller moves the builder on.
  void emitEarlyExit(llvm::Value *status);
  // Leaves the function with `status` unless it is 0; the builder then
  // continues in a new block `<name>.ok`.
  void emitExitUnlessZero(llvm::Value *status, const std::string &name);
  // Alignment of every buffer a kernel allocates (stack or heap): a cache line.
  static constexpr int64_t kBufferAlign = 64;
  // A kBufferAlign-aligned heap block of `bytes` from tkrt_alloc with a null
  // check that exits with kStatusOutOfMemory.
  llvm::Value *emitCheckedMalloc(llvm::Value *bytes, const std::string &name);
  // Returns a block from emitCheckedMalloc to the runtime (tkrt_free).
  void emitFree(llvm::Value *ptr);

  // exp log sqrt abs pow: LLVM intrinsics (inline code or libm); tanh and
  // erf: libm calls (users link -lm).
  llvm::Value *emitMath(ir::MathFn f, llvm::Value *x) override;
  llvm::Value *emitPow(llvm::Value *a, llvm::Value *b) override;
};

} // namespace tk::codegen
