// FormKernelLaunches: the host/device split of a CUDA function.
#pragma once
#include "scheduler/cuda/GpuLaunch.h"
#include "scheduler/Pipeline.h"

#include <optional>

namespace tk {

// Takes a loop-IR function for the cuda family after InsertRuntimeChecks.
// Its top level becomes host code:
// Blocks, Checks and Allocs of `global` tensors (device memory the host
// allocates around the launches) stay; every other top-level statement is a
// kernel launch, in order. A launch is a `For Parallel on blocks` loop (see
// scheduler/cuda/GpuLaunch.h for what its body means); a statement that is not one is
// wrapped in a loop over one block. Reports at the user's source, and
// returns nullopt, what a launch cannot contain:
//   - a blocks mapping below the top level (inside a loop or an `if`);
//   - `global` tensors (device code cannot allocate global memory), and
//     `shared`/`register`/`local` tensors declared outside every launch;
//   - tensors of non-constant shape in shared, register or local memory;
//   - more than 1024 threads per block (ir::launchShape), more than
//     `limits.sharedBytes` of shared memory per block (the hardware's
//     per-block limit; above 48 KiB the backend uses dynamic shared memory);
//   - `register` tensors live together that need more 32-bit registers per
//     thread than `limits.registersPerThread` (they would spill to local
//     memory), or, times the threads per block, more than the register
//     file's `limits.registersPerBlock` (the launch would fail).
struct LaunchLimits {
  int64_t sharedBytes = ir::kStaticSharedLimit;
  int64_t registersPerThread = 255;  // every architecture since sm_35
  int64_t registersPerBlock = 65536; // sm_80 and sm_90
};
std::optional<ir::LoweredFunc> formKernelLaunches(const ir::LoweredFunc &f, const LaunchLimits &limits,
                                                  DiagEngine &diags);

} // namespace tk
