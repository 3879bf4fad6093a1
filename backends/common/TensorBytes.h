// The byte count of a buffer the generated code allocates, computed with
// overflow checks: extents are symbolic (or a generated size too large for
// the stack), and a wrapped product would allocate a small block that the
// kernel then overruns. ir/TensorSize.h has the compile-time side.
#pragma once
#include "backends/common/CodegenContext.h"

namespace tk::codegen {

// elementBytes * extent_0 * ... * extent_n as an i64, or -1 when the
// product overflows int64 or an extent is negative: tkrt_alloc and the
// cuda host code refuse a negative count, and the function returns status
// 3 (docs/abi.md).
llvm::Value *emitTensorBytes(CodegenContext &cg, const ir::TensorDecl &t);

} // namespace tk::codegen
