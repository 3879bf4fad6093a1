// Parallel loops on cores -> an outlined body plus a tkrt_parallel_for call.
#pragma once
#include "backends/x86/CodegenContext.h"

namespace tk::x86 {

// Translates the ForKind::Parallel loop `loop` (worker: cores) into a
// private function `void <kernel>.par<N>(void *ctx, int64_t begin, int64_t
// end)` running iterations [begin, end), a context struct holding every
// variable and buffer the body uses from outside, and a call of
// tkrt_parallel_for(extent, body, &ctx) at the insertion point. A Check that
// fails in the body stores its status in the context; the caller returns it
// once all chunks are done.
void outlineParallelLoop(CodegenContext &cg, const ir::LStmt &loop);

} // namespace tk::x86
