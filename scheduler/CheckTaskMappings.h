// CheckTaskMappings: static checks of a kernel's task mappings.
#pragma once
#include "scheduler/Pipeline.h"

namespace tk {

// Takes a verified kernel whose holes are filled. Reports at the user's
// source:
//   - worker kinds the target family lacks and launch-configuration
//     violations (see WorkerLimits.h);
//   - write conflicts: a store to an op output where workers that differ in
//     a spatial factor write the same element (also for `+=`, `max=`, ...),
//     or a plain `=` store that writes one element in several iterations;
//   - coverage: an output some element of which no store writes, or an
//     output never written at all.
// Store indices are analysed as affine functions of the enclosing mapping
// factors and loops (WriteAnalysis.h); stores with non-affine indices, or
// inside an `if`, are not checked. Returns false after reporting errors.
bool checkTaskMappings(const ir::Kernel &k, DiagEngine &diags);

} // namespace tk
