// KernelLaunches: the device kernels of a cuda function, as the host sees
// them (scheduler/FormKernelLaunches made every top-level statement that is
// not host code a blocks loop).
#pragma once
#include "scheduler/cuda/GpuLaunch.h"

#include <string>
#include <vector>

namespace tk::nvptx {

struct KernelLaunch {
  const ir::LStmt *loop = nullptr; // the blocks loop
  std::string kernel;              // PTX entry name: <function>_k<N>
  ir::LaunchShape shape;
  // Kernel parameters, in this order: the tensors the body uses (op
  // tensors and host-allocated intermediates, first use first), then the
  // op's scalar parameters and shape symbols the body or those tensors'
  // shapes mention (op order: inputs, then symbols). Scalars travel in
  // storage form (f16/bf16 as 16-bit patterns, bool as a byte).
  std::vector<const ir::TensorDecl *> tensors;
  std::vector<std::string> scalars;
  // The block count is not a constant below 2^31: the launcher may spread
  // it over gridDim.y/z, so the kernel linearizes blockIdx and skips the
  // blocks past the count (whose symbols are then among `scalars`).
  bool multiDimGrid = false;
};

// Every launch of `f`, in execution order. Throws InternalError when the
// top level holds something other than host statements and blocks loops.
std::vector<KernelLaunch> collectKernelLaunches(const ir::LoweredFunc &f);

// The .tk type of host-bound scalar `name` (a scalar parameter or a symbol).
ir::ScalarType hostScalarType(const ir::Op &op, const std::string &name);

} // namespace tk::nvptx
