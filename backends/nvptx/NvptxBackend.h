// NVPTX backend: loop IR of `on cuda` functions -> PTX (LLVM's NVPTX target,
// in process), and a host object that embeds the PTX and launches it
// through the CUDA launcher (backends/nvptx/runtime, libtkrt_cuda.a).
// docs/gpu.md describes the lowering, docs/abi.md the host ABI.
#pragma once
#include "backends/Backend.h"
#include "ir/Diagnostics.h"
#include "ir/LoopIR.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tk {

// A named CUDA target: `cuda-sm_80`, `cuda-sm_90`, `cuda-sm_90a`, `cuda`
// (= cuda-sm_90).
struct CudaTarget {
  std::string name;
  std::string sm;         // LLVM CPU name and ptxas -arch, e.g. sm_90
  std::string ptxFeature; // PTX ISA version, as an LLVM feature, e.g. +ptx78
};
// nullopt (and *error set) for an unknown name.
std::optional<CudaTarget> resolveCudaTarget(const std::string &name, std::string *error);
// The accepted names, in the order --version lists them.
std::vector<std::string> cudaTargetNames();

// Translates cuda functions (after FormKernelLaunches) once and writes one
// output per entry of `kinds`, in that order: LLVMIR (the optimized device
// module), Ptx, Object (an x86-64 ELF object exporting the host functions,
// embedding the PTX); Assembly is not a cuda output (InternalError).
// Deterministic: the same input gives the same bytes. nullopt after
// reporting an error.
std::optional<std::vector<backend::Output>> emitCudaCode(const std::vector<ir::LoweredFunc> &funcs,
                                                         const CudaTarget &target, int optLevel,
                                                         const std::vector<backend::OutputKind> &kinds,
                                                         const std::string &moduleName, DiagEngine &diags);

// The registry's NVPTX backend (family cuda): the targets above,
// emitCudaCode, headers in the cuda host ABI.
std::unique_ptr<const backend::Backend> createNvptxBackend();

} // namespace tk
