// The NVPTX backend as the driver sees it (backends/Backend.h): cuda target
// names, emitCudaCode, the cuda host header.
#include "backends/nvptx/NvptxBackend.h"

#include "backends/common/CHeader.h"

namespace tk {

namespace {

class NvptxBackend final : public backend::Backend {
public:
  std::string_view name() const override { return "nvptx"; }
  ir::TargetFamily family() const override { return ir::TargetFamily::Cuda; }
  std::vector<std::string> targetNames() const override { return cudaTargetNames(); }
  bool claims(const std::string &targetName) const override { return targetName.rfind("cuda", 0) == 0; }
  std::optional<backend::Target> resolve(const std::string &targetName, std::string *error) const override {
    std::optional<CudaTarget> cuda = resolveCudaTarget(targetName, error);
    if (!cuda) return std::nullopt;
    // The scheduler's vector width only shapes CPU loops; a cuda build has
    // none but its host code, which is baseline x86-64 (128-bit SSE2).
    return backend::Target{cuda->name, TargetDesc{ir::TargetFamily::Cuda}, *cuda};
  }
  std::string defaultHardware(const backend::Target &) const override { return "h100"; }

  bool canEmit(backend::OutputKind kind) const override {
    return kind == backend::OutputKind::LLVMIR || kind == backend::OutputKind::Ptx ||
           kind == backend::OutputKind::Object;
  }
  // The host object to link and the PTX it embeds (for ptxas, cuobjdump
  // or loading by hand).
  std::vector<backend::OutputKind> buildOutputs() const override {
    return {backend::OutputKind::Object, backend::OutputKind::Ptx};
  }

  std::optional<std::vector<backend::Output>> emit(const std::vector<ir::LoweredFunc> &funcs,
                                                   const backend::Target &target,
                                                   const backend::EmitOptions &options,
                                                   const std::vector<backend::OutputKind> &kinds,
                                                   DiagEngine &diags) const override {
    return emitCudaCode(funcs, std::any_cast<const CudaTarget &>(target.spec), options.optLevel, kinds,
                        options.moduleName, diags);
  }

  std::string emitHeader(const std::vector<ir::Export> &exports, const std::string &guard) const override {
    return emitCHeader(exports, guard, /*cuda=*/true);
  }
};

} // namespace

std::unique_ptr<const backend::Backend> createNvptxBackend() { return std::make_unique<NvptxBackend>(); }

} // namespace tk
