// The write check of `tkc --check-mappings` (scheduler/cpu/InstrumentMappingChecks.h):
// a loop-IR Check whose `tensor` is an output's write-count buffer.
#pragma once
#include "backends/x86/CodegenContext.h"
#include "ir/LoopIR.h"

namespace tk::x86 {

// Calls tkrt_check_writes(output name, rank, shape, record) and leaves the
// function with its status when that is not 0.
void emitWriteCheck(CodegenContext &cg, const ir::LStmt &check);

} // namespace tk::x86
