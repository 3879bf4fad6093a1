// Loop-IR statements -> LLVM IR at the builder's insertion point.
#pragma once
#include "backends/x86/CodegenContext.h"

namespace tk::x86 {

// Translates `s` into the current function of `cg`. Requires every variable
// and tensor it reads from outside to be bound. Loops become counted loops
// (Parallel on cores: outlined and run through tkrt_parallel_for;
// Vectorized / Unrolled: llvm.loop hints); Alloc becomes an entry-block
// alloca (constant-size register/local buffers) or a checked malloc/free;
// a failed Check leaves the function with its status. Target limits (GPU
// worker kinds, shared/ldm scopes, barriers between cores) are reported to
// cg.diags at the statement's location.
void lowerStmt(CodegenContext &cg, const ir::LStmtPtr &s);

} // namespace tk::x86
