// The host side of cuda exports: an x86-64 object that embeds the PTX and
// exports one C function per export (docs/abi.md, "CUDA targets").
#pragma once
#include "backends/nvptx/KernelLaunches.h"
#include "ir/Diagnostics.h"

namespace tk::nvptx {

// `launches[i]` are the launches of funcs[i] (collectKernelLaunches), whose
// kernels `ptx` defines. Each host function takes the CPU ABI's arguments
// (tensors as device pointers) plus a trailing `void *stream`, runs the
// function's Checks, allocates host-level global tensors in device memory
// (tkrt_cuda_alloc, freed after the last launch), and launches each kernel
// with tkrt_cuda_launch_kernel; the first non-zero status is returned after
// freeing what was allocated. Returns the ELF object bytes.
std::string emitHostObject(const std::vector<ir::LoweredFunc> &funcs,
                           const std::vector<std::vector<KernelLaunch>> &launches, const std::string &ptx,
                           int optLevel, const std::string &moduleName, DiagEngine &diags);

} // namespace tk::nvptx
