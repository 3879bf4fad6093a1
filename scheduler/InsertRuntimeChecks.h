// InsertRuntimeChecks: argument checks at function entry (ABI status codes).
#pragma once
#include "scheduler/Pipeline.h"

namespace tk {

// Takes the lowered function of kernel `k`; returns it with Check
// statements in front of its body, in this order:
//   - each shape symbol >= 0                         -> status 1
//   - each `where` constraint of the op              -> status 1
//   - each derived input / output / intermediate
//     extent >= 0 (`N - 1`, a scalar parameter `p`)  -> status 1
//   - each `require` of the kernel left symbolic     -> status 2
// so arguments that make a shape invalid give status 1 whatever the kernel
// requires.
// (status 3, out of memory, is returned by the backends' heap Alloc, which
// also returns it for a byte count that overflows int64 or exceeds 2^47:
// backends/common/TensorBytes.h; constant sizes are checked by the
// frontend, frontend/SemaSizes.h).
// Conditions that simplify to true, and conditions already checked with the
// same status, are omitted. See docs/abi.md.
ir::LoweredFunc insertRuntimeChecks(const ir::LoweredFunc &f, const ir::Kernel &k);

} // namespace tk
