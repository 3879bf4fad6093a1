// One kernel launch -> one PTX entry function (LLVM NVPTX kernel).
#pragma once
#include "backends/nvptx/DeviceContext.h"
#include "backends/nvptx/KernelLaunches.h"

namespace tk::nvptx {

// Emits launch `l` of `f` as kernel `l.kernel` in dc.mod with the parameters
// KernelLaunch lists, annotated as a kernel with at most l.shape.threads
// threads per block. The body runs SPMD (scheduler/cuda/GpuLaunch.h): the blocks loop
// variable is blockIdx.x (or, when l.multiDimGrid, the block index
// linearized over x, y, z, with blocks past the loop's extent skipped);
// Parallel loops on threads / warps bind threadIdx.x / threadIdx.x / 32 and
// guard their body when they have fewer workers than the block; other loops
// are counted loops; `shared` tensors are static addrspace(3) arrays (or
// slices of one extern array when the launch needs dynamic shared memory),
// `register`/`local` ones per-thread stack arrays; `sync` is bar.sync 0.
void emitDeviceKernel(DeviceContext &dc, const ir::LoweredFunc &f, const KernelLaunch &l);

} // namespace tk::nvptx
