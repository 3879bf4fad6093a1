// emitCudaCode: builds the device module (one kernel per launch), runs
// LLVM's pipeline for the NVPTX target, writes PTX, and for objects wraps
// it in the host code.
#include "backends/common/EmitModule.h"
#include "backends/nvptx/EmitDeviceKernel.h"
#include "backends/nvptx/EmitHostObject.h"
#include "backends/nvptx/NvptxBackend.h"

#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <set>

namespace tk {

static void initializeNvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

std::optional<std::vector<backend::Output>> emitCudaCode(const std::vector<ir::LoweredFunc> &funcs,
                                                         const CudaTarget &target, int optLevel,
                                                         const std::vector<backend::OutputKind> &kinds,
                                                         const std::string &moduleName, DiagEngine &diags) {
  static const char *kTriple = "nvptx64-nvidia-cuda";
  initializeNvptx();
  // Device code is optimized at -O3 whenever optimization is on, as nvcc
  // does: full unrolling of constant repeat loops is what keeps register
  // tiles in registers, and -O2 leaves some index arithmetic to ptxas that
  // then spills on sm_90.
  int deviceOpt = optLevel == 0 ? 0 : 3;
  std::unique_ptr<llvm::TargetMachine> tm =
      codegen::createTargetMachine(kTriple, target.sm, target.ptxFeature, deviceOpt, llvm::Reloc::PIC_);
  llvm::LLVMContext ctx;
  llvm::Module m(moduleName, ctx);
  m.setSourceFileName(moduleName);
  m.setTargetTriple(kTriple);
  m.setDataLayout(tm->createDataLayout());

  size_t errorsBefore = diags.errorCount();
  nvptx::DeviceContext dc(m, diags);
  std::vector<std::vector<nvptx::KernelLaunch>> launches;
  std::set<std::string> names;
  for (const ir::LoweredFunc &f : funcs) {
    if (f.target != ir::TargetFamily::Cuda)
      throw InternalError("nvptx backend: function '" + f.name + "' is not a cuda function");
    if (!names.insert(f.name).second) {
      diags.error(f.loc, "symbol '" + f.name + "' is exported twice");
      continue;
    }
    launches.push_back(nvptx::collectKernelLaunches(f));
    for (const nvptx::KernelLaunch &l : launches.back()) nvptx::emitDeviceKernel(dc, f, l);
  }
  if (diags.errorCount() > errorsBefore) return std::nullopt;
  codegen::verifyGeneratedModule(m, "nvptx backend");
  codegen::optimizeModule(m, *tm, deviceOpt);

  // The device module is printed before the PTX is written (codegen
  // passes change the module); the PTX is written once and shared by the
  // PTX output and the host object that embeds it.
  std::string deviceLLVM;
  if (std::find(kinds.begin(), kinds.end(), backend::OutputKind::LLVMIR) != kinds.end()) {
    llvm::raw_string_ostream os(deviceLLVM);
    m.print(os, nullptr);
  }
  std::vector<backend::Output> outs;
  std::optional<std::string> ptx;
  auto devicePtx = [&]() -> const std::string & {
    if (!ptx) ptx = codegen::emitModuleFile(m, *tm, llvm::CodeGenFileType::AssemblyFile);
    return *ptx;
  };
  for (backend::OutputKind kind : kinds) {
    switch (kind) {
    case backend::OutputKind::LLVMIR: outs.push_back({kind, ".ll", deviceLLVM}); break;
    case backend::OutputKind::Ptx: outs.push_back({kind, ".ptx", devicePtx()}); break;
    case backend::OutputKind::Object:
      outs.push_back({kind, ".o", nvptx::emitHostObject(funcs, launches, devicePtx(), optLevel, moduleName, diags)});
      break;
    default: throw InternalError("nvptx backend: asked for an output it cannot write (assembly: use PTX)");
    }
  }
  return outs;
}

} // namespace tk
