#include "frontend/driver/Driver.h"

#include "backends/nvptx/NvptxBackend.h"
#include "backends/x86/CHeader.h"
#include "backends/x86/X86Backend.h"
#include "frontend/Frontend.h"
#include "frontend/ResolveImports.h"
#include "frontend/driver/CommandLine.h"
#include "frontend/driver/Depfile.h"
#include "frontend/driver/Hardware.h"
#include "frontend/driver/MeasureCandidates.h"
#include "frontend/driver/OutputFile.h"
#include "frontend/driver/Tune.h"
#include "scheduler/Pipeline.h"
#include "scheduler/looptune/TuningRecords.h"

#include <llvm/Config/llvm-config.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace tk::driver {

namespace fs = std::filesystem;

namespace {

struct UsageError {
  std::string message;
};

const char *defaultExtension(EmitKind k) {
  switch (k) {
  case EmitKind::LLVM: return ".ll";
  case EmitKind::Asm: return ".s";
  case EmitKind::Header: return ".h";
  case EmitKind::Obj: return ".o";
  case EmitKind::Ptx: return ".ptx";
  default: return nullptr; // IR dumps go to stdout
  }
}

std::string outputPath(const DriverOptions &o) {
  if (!o.output.empty()) return o.output;
  if (o.tune) return fs::path(o.input).stem().string() + ".tkr";
  const char *ext = defaultExtension(o.emit);
  return ext ? fs::path(o.input).stem().string() + ext : "-";
}

std::string stdlibDir(const DriverOptions &o, const std::string &exePath) {
  if (!o.stdlibDir.empty()) return o.stdlibDir;
  if (const char *env = std::getenv("TK_STDLIB"); env && *env) return env;
  std::error_code ec;
  fs::path installed = fs::path(exePath).parent_path() / ".." / "share" / "tk" / "stdlib";
  if (!exePath.empty() && fs::is_directory(installed, ec)) return fs::weakly_canonical(installed, ec).string();
#ifdef TK_SOURCE_STDLIB_DIR
  return TK_SOURCE_STDLIB_DIR;
#else
  return "";
#endif
}

bool useColor(ColorMode m) {
  if (m != ColorMode::Auto) return m == ColorMode::Always;
  const char *noColor = std::getenv("NO_COLOR");
  return isatty(STDERR_FILENO) && !(noColor && *noColor);
}

// A C identifier for the include guard: TK_<OUTPUT BASENAME>_H.
std::string headerGuard(const std::string &output, const std::string &input) {
  std::string base = fs::path(output == "-" ? input : output).stem().string();
  std::string g = "TK_";
  for (char c : base) g += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(c)) : '_';
  return g + "_H";
}

std::string joined(const std::vector<std::string> &parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "\n" : "") + parts[i];
  return out;
}

// Produces the requested output; nullopt after compile errors.
// `cuda` is set for cuda targets (then `target` is unused).
// Replaces the functions `path` has tuning records for (docs/looptune.md).
bool applyRecords(const std::string &path, const ir::Module &m, const CpuTarget &target,
                  std::vector<ir::LoweredFunc> &funcs, SourceManager &sm, DiagEngine &diags) {
  std::string text;
  if (!readSourceFile(path, text))
    throw UsageError{"cannot read tuning records '" + path + "' (no such regular file, or larger than 64 MiB)"};
  auto records = looptune::parseTuningRecords(sm.addFile(path, std::move(text)), sm, diags);
  if (!records) return false;
  looptune::applyTuningRecords(m, *records, looptune::vectorLanes(target), funcs, diags);
  return !diags.hasErrors();
}

std::optional<std::string> compile(const DriverOptions &o, const CpuTarget &target, const CudaTarget *cuda,
                                   const std::string &stdlib,
                                   SourceManager &sm, DiagEngine &diags, std::vector<std::string> &deps) {
  if (o.emit == EmitKind::Ast) {
    deps.push_back(o.input);
    return dumpAst(o.input, sm, diags);
  }
  FrontendOptions fo;
  fo.includeDirs = o.includeDirs;
  fo.stdlibDir = stdlib;
  fo.target = cuda ? ir::TargetFamily::Cuda : ir::TargetFamily::Cpu;
  std::optional<ir::Module> m = buildModule(o.input, fo, sm, diags, &deps);
  if (!m || diags.hasErrors()) return std::nullopt;
  if (o.emit == EmitKind::Header) return emitCHeader(m->exports, headerGuard(outputPath(o), o.input), cuda != nullptr);
  if (o.emit == EmitKind::Tensor) {
    std::vector<std::string> ops;
    for (const ir::OpPtr &op : m->ops) ops.push_back(ir::printOp(*op));
    return joined(ops);
  }
  if (o.tune) {
    if (cuda) throw UsageError{"tkc tune measures on this CPU; --target must be a CPU target"};
    looptune::TuneOptions to{o.tuneSearch, o.tuneBudget,
                             o.tunePolicy.empty() ? (fs::path(stdlib) / "looptune" / "policy.qnet").string()
                                                  : o.tunePolicy};
    return looptune::tuneModule(*m, target, to, sm, diags, &std::cerr);
  }
  PipelineOptions po;
  po.target.vectorBits = target.vectorBits;
  po.target.family = fo.target;
  auto construct = constructOptions(o, stdlib, sm, diags, o.constructTrace ? &std::cout : nullptr);
  if (!construct) return std::nullopt;
  if (o.rank == "measure") construct->measure = measureCandidates(target, construct->shapes);
  po.construct = &*construct;
  po.constructContractions = o.constructContractions;
  po.checkMappings = o.checkMappings;
  if (o.emit == EmitKind::Mapping) {
    std::vector<std::string> kernels;
    for (const ir::KernelPtr &k : scheduleModule(*m, po, diags)) kernels.push_back(ir::printKernel(*k));
    if (diags.hasErrors()) return std::nullopt;
    return joined(kernels);
  }
  std::vector<ir::LoweredFunc> funcs = lowerModule(*m, po, diags);
  if (diags.hasErrors()) return std::nullopt;
  if (!o.tuningRecords.empty() && !applyRecords(o.tuningRecords, *m, target, funcs, sm, diags)) return std::nullopt;
  if (o.emit == EmitKind::Loop) {
    std::vector<std::string> texts;
    for (const ir::LoweredFunc &f : funcs) texts.push_back(ir::printLoweredFunc(f));
    return joined(texts);
  }
  CodegenOutput kind = o.emit == EmitKind::LLVM  ? CodegenOutput::LLVMIR
                       : o.emit == EmitKind::Asm ? CodegenOutput::Assembly
                                                 : CodegenOutput::Object;
  std::string out;
  // The module is named after the file's basename so output does not
  // depend on the directory the build runs in.
  if (cuda) {
    CudaOutput ck = o.emit == EmitKind::Ptx ? CudaOutput::PTX
                    : o.emit == EmitKind::LLVM ? CudaOutput::DeviceLLVM
                                               : CudaOutput::HostObject;
    if (!emitCudaCode(funcs, *cuda, o.optLevel, ck, fs::path(o.input).filename().string(), out, diags))
      return std::nullopt;
    return out;
  }
  if (!emitCpuCode(funcs, target, o.optLevel, kind, fs::path(o.input).filename().string(), out, diags))
    return std::nullopt;
  return out;
}

int run(const std::vector<std::string> &rawArgs, const std::string &exePath) {
  std::string error;
  auto args = expandResponseFiles(rawArgs, &error);
  if (!args) throw UsageError{error};
  auto opts = parseCommandLine(*args, &error);
  if (!opts) throw UsageError{error};
  const DriverOptions &o = *opts;
  if (o.showHelp) {
    std::cout << helpText();
    return kExitOk;
  }
  if (o.showVersion) {
    std::cout << "tkc " << TK_VERSION << " (LLVM " << LLVM_VERSION_STRING << ")\n"
              << "targets: host x86_64 x86_64-avx2 x86_64-avx512 " << cudaTargetNames() << "\n";
    return kExitOk;
  }
  std::optional<CudaTarget> cuda;
  if (o.target.rfind("cuda", 0) == 0) {
    cuda = resolveCudaTarget(o.target, &error);
    if (!cuda) throw UsageError{error};
    if (o.emit == EmitKind::Asm) throw UsageError{"--emit=asm is for CPU targets; use --emit=ptx for " + o.target};
    if (o.rank == "measure")
      throw UsageError{"--rank=measure times candidates on this CPU; ranking " + o.target +
                       " kernels by measurement needs a GPU run, which tkc does not do: use --rank=roofline"};
  } else if (o.emit == EmitKind::Ptx) {
    throw UsageError{"--emit=ptx needs a cuda target (--target=cuda-sm_80, cuda-sm_90, cuda-sm_90a or cuda)"};
  }
  // Host objects for cuda targets are x86-64 code; the CPU target only
  // matters for CPU targets.
  auto target = resolveCpuTarget(cuda ? "x86_64" : o.target, &error);
  if (!target) throw UsageError{error};
  std::string output = outputPath(o);
  std::string depfilePath = o.depfilePath;
  if (o.depfile && depfilePath.empty()) {
    if (output == "-") throw UsageError{"-MD with output to stdout needs -MF FILE"};
    depfilePath = fs::path(output).replace_extension(".d").string();
  }

  SourceManager sm;
  DiagEngine diags(sm);
  diags.setFormat(o.jsonDiagnostics ? DiagEngine::Format::Json : DiagEngine::Format::Text);
  diags.setColor(useColor(o.color));
  diags.setWarningsAsErrors(o.werror);
  std::vector<std::string> deps;
  std::optional<std::string> result;
  try {
    result = compile(o, *target, cuda ? &*cuda : nullptr, stdlibDir(o, exePath), sm, diags, deps);
  } catch (...) {
    diags.flush();
    throw;
  }
  diags.flush();
  if (!result || diags.hasErrors()) return kExitCompileError;
  if (!writeOutputFile(output, *result, &error)) {
    std::cerr << "tkc: error: " << error << "\n";
    return kExitCompileError;
  }
  if (o.depfile && !writeOutputFile(depfilePath, makeDepfile(o.depTarget.empty() ? output : o.depTarget, deps),
                                    &error)) {
    std::cerr << "tkc: error: " << error << "\n";
    return kExitCompileError;
  }
  return kExitOk;
}

} // namespace

int runTkc(const std::vector<std::string> &args, const std::string &exePath) {
  try {
    return run(args, exePath);
  } catch (const UsageError &e) {
    std::cerr << "tkc: error: " << e.message << "\n";
    return kExitUsage;
  } catch (const InternalError &e) {
    std::cerr << "tkc: internal error: " << e.what() << "\n";
    return kExitInternal;
  } catch (const std::exception &e) {
    std::cerr << "tkc: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

} // namespace tk::driver
