// The x86 backend as the driver sees it (backends/Backend.h): CPU target
// names, emitCpuCode per requested output, the CPU header.
#include "backends/x86/X86Backend.h"

#include "backends/common/CHeader.h"

namespace tk {

namespace {

class X86Backend final : public backend::Backend {
public:
  std::string_view name() const override { return "x86"; }
  ir::TargetFamily family() const override { return ir::TargetFamily::Cpu; }
  std::vector<std::string> targetNames() const override {
    return {"host", "x86_64", "x86_64-avx2", "x86_64-avx512", "x86_64-avx512vnni"};
  }
  bool claims(const std::string &targetName) const override {
    return targetName == "host" || targetName.rfind("x86", 0) == 0;
  }
  std::optional<backend::Target> resolve(const std::string &targetName, std::string *error) const override {
    std::optional<CpuTarget> cpu = resolveCpuTarget(targetName, error);
    if (!cpu) return std::nullopt;
    return backend::Target{cpu->name, cpuTargetDesc(*cpu), *cpu};
  }
  // x86_64, x86_64-avx2, x86_64-avx512: stdlib/targets/<name>.hw; the VNNI
  // level is the same generic part as x86_64-avx512.
  std::string defaultHardware(const backend::Target &target) const override {
    return target.name == "x86_64-avx512vnni" ? "x86_64-avx512" : target.name;
  }

  bool canEmit(backend::OutputKind kind) const override {
    return kind == backend::OutputKind::LLVMIR || kind == backend::OutputKind::Assembly ||
           kind == backend::OutputKind::Object;
  }
  std::vector<backend::OutputKind> buildOutputs() const override { return {backend::OutputKind::Object}; }

  // Each output is its own LLVM module: CPU builds ask for one output, and
  // the translation is deterministic, so nothing is lost by not sharing it.
  std::optional<std::vector<backend::Output>> emit(const std::vector<ir::LoweredFunc> &funcs,
                                                   const backend::Target &target,
                                                   const backend::EmitOptions &options,
                                                   const std::vector<backend::OutputKind> &kinds,
                                                   DiagEngine &diags) const override {
    const auto &cpu = std::any_cast<const CpuTarget &>(target.spec);
    std::vector<backend::Output> outs;
    for (backend::OutputKind kind : kinds) {
      backend::Output o{kind, suffix(kind), {}};
      if (!emitCpuCode(funcs, cpu, options.optLevel, codegenOutput(kind), options.moduleName, o.bytes, diags,
                       options.jobs))
        return std::nullopt;
      outs.push_back(std::move(o));
    }
    return outs;
  }

  std::string emitHeader(const std::vector<ir::Export> &exports, const std::string &guard) const override {
    return emitCHeader(exports, guard, /*cuda=*/false);
  }

private:
  static CodegenOutput codegenOutput(backend::OutputKind kind) {
    switch (kind) {
    case backend::OutputKind::LLVMIR: return CodegenOutput::LLVMIR;
    case backend::OutputKind::Assembly: return CodegenOutput::Assembly;
    case backend::OutputKind::Object: return CodegenOutput::Object;
    default: break;
    }
    throw InternalError("x86 backend: asked for an output it cannot write");
  }
  static std::string suffix(backend::OutputKind kind) {
    return kind == backend::OutputKind::LLVMIR ? ".ll" : kind == backend::OutputKind::Assembly ? ".s" : ".o";
  }
};

} // namespace

std::unique_ptr<const backend::Backend> createX86Backend() { return std::make_unique<X86Backend>(); }

} // namespace tk
