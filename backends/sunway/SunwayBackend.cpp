// The Sunway backend as the driver sees it (backends/Backend.h): the two
// Sunway target names, the C sources and Makefile of emitSunwaySources, and
// headers in the CPU's C ABI (the MPE-side wrappers hide the spawns).
#include "backends/sunway/SunwayBackend.h"

#include "backends/common/CHeader.h"
#include "backends/sunway/EmitSources.h"

namespace tk {

std::optional<SunwayTarget> resolveSunwayTarget(const std::string &name, std::string *error) {
  if (name == "sunway") return SunwayTarget{name, false, 64 * 1024, 256};
  if (name == "sunway-pro") return SunwayTarget{name, true, 256 * 1024, 512};
  if (error) *error = "unknown Sunway target '" + name + "' (expected sunway or sunway-pro)";
  return std::nullopt;
}

namespace {

class SunwayBackend final : public backend::Backend {
public:
  std::string_view name() const override { return "sunway"; }
  ir::TargetFamily family() const override { return ir::TargetFamily::Sunway; }
  std::vector<std::string> targetNames() const override { return {"sunway", "sunway-pro"}; }
  bool claims(const std::string &targetName) const override { return targetName.rfind("sunway", 0) == 0; }
  std::optional<backend::Target> resolve(const std::string &targetName, std::string *error) const override {
    std::optional<SunwayTarget> sw = resolveSunwayTarget(targetName, error);
    if (!sw) return std::nullopt;
    // One core group: 64 CPEs; 32 vector registers of the CPE's width.
    return backend::Target{sw->name, TargetDesc{ir::TargetFamily::Sunway, sw->vectorBits, 32, 64}, *sw};
  }
  std::string defaultHardware(const backend::Target &target) const override {
    return std::any_cast<const SunwayTarget &>(target.spec).pro ? "sw26010-pro" : "sw26010";
  }

  bool canEmit(backend::OutputKind kind) const override {
    return kind == backend::OutputKind::MpeSource || kind == backend::OutputKind::CpeSource ||
           kind == backend::OutputKind::ParamsHeader || kind == backend::OutputKind::Makefile;
  }
  std::vector<backend::OutputKind> buildOutputs() const override {
    return {backend::OutputKind::MpeSource, backend::OutputKind::CpeSource, backend::OutputKind::ParamsHeader,
            backend::OutputKind::Makefile};
  }

  std::optional<std::vector<backend::Output>> emit(const std::vector<ir::LoweredFunc> &funcs,
                                                   const backend::Target &target,
                                                   const backend::EmitOptions &options,
                                                   const std::vector<backend::OutputKind> &kinds,
                                                   DiagEngine &diags) const override {
    return emitSunwaySources(funcs, std::any_cast<const SunwayTarget &>(target.spec), options, kinds, diags);
  }

  std::string emitHeader(const std::vector<ir::Export> &exports, const std::string &guard) const override {
    return emitCHeader(exports, guard);
  }
};

} // namespace

std::unique_ptr<const backend::Backend> createSunwayBackend() { return std::make_unique<SunwayBackend>(); }

} // namespace tk
