// CheckTaskMappings: static checks of a kernel's task mappings.
#pragma once
#include "scheduler/Pipeline.h"

namespace tk {

// Takes a verified kernel whose holes are filled. Reports at the user's
// source:
//   - worker kinds the target family lacks and launch-configuration
//     violations (see WorkerLimits.h);
//   - mapping extents: a constant one below 1, a symbolic one that can be
//     negative for a call the context allows (user kernels only);
//   - write conflicts: a store to an op output where workers that differ in
//     a spatial factor write the same element (also for `+=`, `max=`, ...),
//     or a plain `=` store that writes one element in several iterations;
//   - coverage: an output some element of which no store writes, or an
//     output never written at all.
//   - read-write races (user kernels): a load of an output or shared
//     `global` local element that another worker of the same mapping
//     stores, in the same phase (no top-level `sync` of the mapping between
//     them); per-worker locals never race.
// Stores, extents and `if`s are decided exactly over integer sets
// (WriteAnalysis.h); each error gives an example. What is not Presburger
// (e.g. `i * j` indices, conditions that read data) is a warning saying
// why, except in kernels the scheduler made (`synthesized`), which report
// errors only. Returns false after reporting errors.
bool checkTaskMappings(const ir::Kernel &k, DiagEngine &diags);

} // namespace tk
