// NVPTX backend: loop IR of `on cuda` functions -> PTX (LLVM's NVPTX target,
// in process), and a host object that embeds the PTX and launches it
// through the CUDA launcher (backends/nvptx/runtime, libtkrt_cuda.a).
// docs/gpu.md describes the lowering, docs/abi.md the host ABI.
#pragma once
#include "ir/Diagnostics.h"
#include "ir/LoopIR.h"

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
// The accepted names, space separated (for --version and messages).
std::string cudaTargetNames();

enum class CudaOutput {
  PTX,         // the device module as PTX text
  DeviceLLVM,  // the optimized device module as LLVM IR text
  HostObject   // an x86-64 ELF object exporting the host functions
};

// Translates cuda functions (after FormKernelLaunches) and writes the
// requested form to `out`. Deterministic: the same input gives the same
// bytes. Returns false after reporting an error.
bool emitCudaCode(const std::vector<ir::LoweredFunc> &funcs, const CudaTarget &target, int optLevel,
                  CudaOutput kind, const std::string &moduleName, std::string &out, DiagEngine &diags);

} // namespace tk
