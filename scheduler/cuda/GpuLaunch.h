// GpuLaunch: the launch shape of a CUDA kernel launch in loop IR.
//
// A CUDA function's top level is host code; each launch is a
// `For Parallel on blocks` loop (scheduler/FormKernelLaunches). Its extent
// is the grid size and its body runs on every thread of each block (SPMD):
// Parallel loops on `threads` and `warps` inside it are implicit launch
// dimensions, not loops — their variable is the thread index (tid) or the
// warp index (tid / 32), and threads beyond the loop's extent skip its body.
#pragma once
#include "ir/LoopIR.h"

namespace tk::ir {

// Shared memory a block may use without opting in: up to this much the
// `shared` tensors are static .shared arrays, above it slices of one
// dynamic (extern) array that the launcher sizes (docs/gpu.md).
constexpr int64_t kStaticSharedLimit = 48 * 1024;

// Every count saturates at INT64_MAX rather than wrapping (holes and
// constants may be as large as 2^63 - 1), so a launch too large to count
// still exceeds the limits it is checked against.
struct LaunchShape {
  int64_t threads = 1;     // threads per block: the largest threads extent or 32 x warps extent (1 if none)
  int64_t sharedBytes = 0; // shared memory per block: every `shared` Alloc in the body, 16-byte aligned
  // 32-bit registers per thread that the `register` tensors live at the
  // same time need (the most over the body's scopes; a lower bound on what
  // the kernel uses, which also needs registers for addresses and indices).
  int64_t registerWords = 0;
  bool constant = true;    // false: a threads/warps extent or a shared shape is not a constant
  bool dynamicShared() const { return sharedBytes > kStaticSharedLimit; }
};

// Requires `body` to be the body of a blocks loop.
LaunchShape launchShape(const LStmtPtr &body);

} // namespace tk::ir
