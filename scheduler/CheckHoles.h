// CheckHoles: every tile-size hole gets its value before lowering.
#pragma once
#include "scheduler/Pipeline.h"

namespace tk {

// Takes a verified kernel whose holes may carry values (from the
// construction optimizer, scheduler/construct/FillHoles.h). Reports, at the
// `?`:
//   - a hole without a value,
//   - a value outside the hole's candidate set, not positive, or above
//     2^47 (no tensor extent is larger);
//   - a local tensor whose filled shape takes more than 2^47 bytes, or a
//     mapping whose filled constant extents multiply past int64;
// then returns a copy of the kernel with every hole replaced by its value
// (local tensor shapes included) and its `require`s evaluated: a constant
// false one is reported at the `require`, a constant true one dropped, a
// symbolic one kept for the run-time check (ABI status 2). Returns nullptr
// after reporting errors.
ir::KernelPtr checkHoles(const ir::Kernel &k, DiagEngine &diags);

} // namespace tk
