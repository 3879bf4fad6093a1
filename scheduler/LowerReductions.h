// LowerReductions: Reduce expressions -> accumulator loops.
#pragma once
#include "scheduler/Pipeline.h"

namespace tk {

// Takes a loop-IR function that may contain Reduce nodes in any statement's
// expressions; returns one without them. Each outermost reduction in a
// statement becomes a scalar register accumulator (`alloc register acc:
// f32[]`, of ir::accumulatorType: f32 for f16/bf16 sums) initialized with the reduction's identity (0, 1, -inf, +inf), a
// nest of Serial loops over the reduction variables that combines the body
// into it, and a load of the accumulator where the reduction was. Nested
// reductions are lowered inside the loops of the enclosing one; reduction
// variables that would shadow a variable in scope are renamed.
ir::LoweredFunc lowerReductions(const ir::LoweredFunc &f);

} // namespace tk
