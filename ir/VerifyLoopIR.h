// Invariants of a loop-IR function: variables bound by an enclosing loop or
// let, tensors visible (op tensors or enclosing allocs), store/load ranks,
// no holes, parallel loops name a worker kind, checks carry an error code
// in 1..3. With `reductionsLowered`, no Reduce node may remain. Throws
// tk::InternalError on the first violation.
#pragma once
#include "ir/LoopIR.h"

namespace tk::ir {

void verifyLoopIR(const LoweredFunc &f, bool reductionsLowered);

} // namespace tk::ir
