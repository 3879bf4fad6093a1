// One LoweredFunc -> one exported LLVM function with the tkc C ABI
// (docs/abi.md): int NAME(const T *in..., T *out..., int64_t sym...).
#pragma once
#include "backends/x86/CodegenContext.h"

namespace tk::x86 {

// Emits `f` as an external function in cg.mod. Intermediate tensors the body
// uses without an Alloc get a heap buffer for the whole call. Errors (target
// limits) go to cg.diags; the function is still well formed.
void emitKernelFunction(CodegenContext &cg, const ir::LoweredFunc &f);

} // namespace tk::x86
