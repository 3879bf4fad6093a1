#include "frontend/driver/Driver.h"

#include "backends/Backend.h"
#include "backends/x86/X86Backend.h"
#include "frontend/Frontend.h"
#include "frontend/ResolveImports.h"
#include "frontend/driver/CommandLine.h"
#include "frontend/driver/CompileOptions.h"
#include "frontend/driver/Dependencies.h"
#include "frontend/driver/Depfile.h"
#include "frontend/driver/EmitKinds.h"
#include "frontend/driver/Hardware.h"
#include "frontend/driver/InputFile.h"
#include "frontend/driver/OutputFile.h"
#include "frontend/driver/RankingOptions.h"
#include "frontend/driver/TrainCostModel.h"
#include "frontend/driver/explain/ExplainCommand.h"
#include "frontend/driver/Tune.h"
#include "scheduler/Pipeline.h"
#include "scheduler/construct/HardwareDesc.h"
#include "scheduler/looptune/TuningRecords.h"

#include <fmt/format.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>

#include <any>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace tk::driver {

namespace fs = std::filesystem;

namespace {

struct UsageError {
  std::string message;
};

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

// `-o DIR/` (a trailing '/'): every output goes into DIR.
bool outputIsDirectory(const DriverOptions &o) { return !o.output.empty() && o.output.back() == '/'; }

// An output's path in the directory of `-o DIR/`: DIR/<input basename><suffix>.
std::string pathInDirectory(const DriverOptions &o, const std::string &suffix) {
  return (fs::path(o.output) / (fs::path(o.input).stem().string() + suffix)).string();
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

// The CPU record of a target of the x86 backend: tuning and --rank=measure
// compile and time code on this CPU (JitMeasure.h).
const CpuTarget &cpuTarget(const backend::Target &target) { return std::any_cast<const CpuTarget &>(target.spec); }

// Replaces the functions `path` has tuning records for (docs/looptune.md).
bool applyRecords(const std::string &path, const ir::Module &m, int vectorBits, std::vector<ir::LoweredFunc> &funcs,
                  SourceManager &sm, DiagEngine &diags) {
  std::string text;
  if (!readSourceFile(path, text))
    throw UsageError{"cannot read tuning records '" + path + "' (no such regular file, or larger than 64 MiB)"};
  auto records = looptune::parseTuningRecords(sm.addFile(path, std::move(text)), sm, diags);
  if (!records) return false;
  looptune::applyTuningRecords(m, *records, looptune::vectorLanes(vectorBits), funcs, diags);
  return !diags.hasErrors();
}

// One file a compile produces: the suffix its name gets in `-o DIR/`, and
// its bytes; `path` set for a file written where its own flag says
// (--header=FILE).
struct CompiledFile {
  std::string suffix;
  std::string bytes;
  std::string path;
};
using Compiled = std::optional<std::vector<CompiledFile>>;

Compiled oneFile(std::optional<std::string> bytes, const char *suffix) {
  if (!bytes) return std::nullopt;
  return std::vector<CompiledFile>{{suffix, std::move(*bytes), {}}};
}

// Produces the requested outputs (one, or a build's set for `-o DIR/`);
// nullopt after compile errors.
Compiled emitFromModule(const DriverOptions &o, const Input &in, const ir::Module *m, const backend::Backend &be,
                        const backend::Target &target, const std::string &stdlib, SourceManager &sm,
                        DiagEngine &diags, std::vector<std::string> &deps, std::ostream *trace);

Compiled compile(const DriverOptions &o, const Input &in, const backend::Backend &be, const backend::Target &target,
                 const std::string &stdlib, SourceManager &sm, DiagEngine &diags, std::vector<std::string> &deps,
                 std::ostream *trace) {
  if (o.emit == EmitKind::Ast) {
    deps.push_back(in.name);
    return oneFile(dumpAst(in.name, sm, diags, in.source()), "");
  }
  std::optional<ir::Module> m =
      buildModule(in.name, frontendOptions(o, stdlib, target.desc.family), sm, diags, &deps, in.source());
  if (!m || diags.hasErrors()) return std::nullopt;
  Compiled files = emitFromModule(o, in, &*m, be, target, stdlib, sm, diags, deps, trace);
  // --header=FILE (ISPC's -h): the C header too, from the same run.
  if (files && !o.headerPath.empty())
    files->push_back({".h", be.emitHeader(m->exports, headerGuard(o.headerPath, in.name)), o.headerPath});
  return files;
}

// What `m` compiles to for the options (the module-level part of compile).
Compiled emitFromModule(const DriverOptions &o, const Input &in, const ir::Module *m, const backend::Backend &be,
                        const backend::Target &target, const std::string &stdlib, SourceManager &sm,
                        DiagEngine &diags, std::vector<std::string> &deps, std::ostream *trace) {
  bool inDirectory = outputIsDirectory(o);
  std::string headerPath = inDirectory ? pathInDirectory(o, ".h") : outputPath(o);
  if (o.emit == EmitKind::Header) return oneFile(be.emitHeader(m->exports, headerGuard(headerPath, in.name)), ".h");
  if (o.emit == EmitKind::Tensor) {
    std::vector<std::string> ops;
    for (const ir::OpPtr &op : m->ops) ops.push_back(ir::printOp(*op));
    return oneFile(joined(ops), "");
  }
  if (o.tune) {
    if (target.desc.family != ir::TargetFamily::Cpu)
      throw UsageError{"tkc tune measures on this CPU; --target must be a CPU target"};
    looptune::TuneOptions to;
    to.search = o.tuneSearch;
    to.budgetSec = o.tuneBudget;
    to.policyPath =
        o.tunePolicy.empty() ? (fs::path(stdlib) / "looptune" / "policy.qnet").string() : o.tunePolicy;
    if (o.tuneSearch == "policy") deps.push_back(to.policyPath);
    std::string usage;
    if (!o.recordsOut.empty() && !(to.record = tuneRecorder(o.recordsOut, o.tuneSearch, &usage)))
      throw UsageError{usage};
    std::ostream *log = diags.format() == DiagEngine::Format::Json ? nullptr : &std::cerr; // stderr holds only JSON
    return oneFile(looptune::tuneModule(*m, cpuTarget(target), to, sm, diags, log), ".tkr");
  }
  PipelineOptions po = pipelineOptions(o, target.desc);
  po.dumpAfterEachPass = o.dumpAfterEachPass ? &std::cerr : nullptr;
  auto construct =
      constructOptions(o, be.defaultHardware(target), stdlib, sm, diags, trace, &deps);
  if (!construct) return std::nullopt;
  std::string usage;
  const CpuTarget *cpu = target.desc.family == ir::TargetFamily::Cpu ? &cpuTarget(target) : nullptr;
  if (!setRanking(o, cpu, stdlib, *construct, sm, diags, &deps, &usage)) {
    if (!usage.empty()) throw UsageError{usage};
    return std::nullopt;
  }
  po.construct = &*construct;
  if (o.emit == EmitKind::Mapping || o.emit == EmitKind::Kernel) {
    std::vector<std::string> kernels;
    if (o.emit == EmitKind::Kernel)
      kernels.push_back(fmt::format("// The schedules tkc chose for {} (--target={}): paste a kernel into a file that\n"
                                    "// defines or imports its op; it is exported under its own name (docs/driver.md).\n",
                                    fs::path(in.name).filename().string(), o.target));
    for (const ir::KernelPtr &k : scheduleModule(*m, po, diags))
      kernels.push_back(o.emit == EmitKind::Mapping ? ir::printKernel(*k)
                                                    : kernelAsSource(*k));
    if (diags.hasErrors()) return std::nullopt;
    return oneFile(joined(kernels), "");
  }
  std::vector<ir::LoweredFunc> funcs = lowerModule(*m, po, diags);
  if (diags.hasErrors()) return std::nullopt;
  if (!o.tuningRecords.empty()) {
    deps.push_back(o.tuningRecords);
    if (!applyRecords(o.tuningRecords, *m, target.desc.vectorBits, funcs, sm, diags)) return std::nullopt;
  }
  if (o.emit == EmitKind::Loop) {
    std::vector<std::string> texts;
    for (const ir::LoweredFunc &f : funcs) texts.push_back(ir::printLoweredFunc(f));
    return oneFile(joined(texts), "");
  }
  // An object build into a directory writes everything a build links or
  // loads: the backend's outputs and the header.
  bool build = inDirectory && o.emit == EmitKind::Obj;
  std::vector<backend::OutputKind> kinds = build ? be.buildOutputs() : std::vector{outputKind(o.emit)};
  // The module is named after the file's basename so output does not
  // depend on the directory the build runs in.
  backend::EmitOptions eo{o.optLevel, fs::path(in.name).filename().string(),
                          o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
  std::optional<std::vector<backend::Output>> outs = be.emit(funcs, target, eo, kinds, diags);
  if (!outs) return std::nullopt;
  std::vector<CompiledFile> files;
  for (backend::Output &out : *outs)
    files.push_back({out.suffix, std::move(out.bytes),
                     out.fileName.empty() ? std::string() : (fs::path(o.output) / out.fileName).string()});
  if (build) files.push_back({".h", be.emitHeader(m->exports, headerGuard(headerPath, in.name)), {}});
  return files;
}

void configureDiagnostics(DiagEngine &diags, const DriverOptions &o) {
  diags.setFormat(o.jsonDiagnostics ? DiagEngine::Format::Json : DiagEngine::Format::Text);
  diags.setColor(useColor(o.color));
  diags.setWarningsAsErrors(o.werror);
}

// An error of the driver itself (an output it cannot write): `tkc: error:`
// text, or, with --diagnostics-format=json, a diagnostic without location
// in the one JSON document on stderr.
void driverError(DiagEngine &diags, const std::string &message) {
  if (diags.format() == DiagEngine::Format::Json) diags.error(SourceLoc{}, message);
  else std::cerr << "tkc: error: " << message << "\n";
}

// --print-hw: the hardware description compiling with these options would
// use, in the .hw format (docs/hardware.md).
int printHardware(const DriverOptions &o, const backend::Backend &be, const backend::Target &target,
                  const std::string &stdlib, SourceManager &sm, DiagEngine &diags) {
  auto construct = constructOptions(o, be.defaultHardware(target), stdlib, sm, diags, nullptr);
  if (!construct) return kExitCompileError;
  std::cout << construct::printHardwareDesc(construct->hw);
  return kExitOk;
}

// Writes the compiled files where the options say; false after printing
// an error.
bool writeOutputs(const DriverOptions &o, const std::vector<CompiledFile> &files, std::vector<std::string> &paths,
                  DiagEngine &diags) {
  std::string error;
  if (outputIsDirectory(o)) {
    std::error_code ec;
    fs::create_directories(o.output, ec);
    if (ec) error = "cannot create directory '" + o.output + "': " + ec.message();
    for (const CompiledFile &f : files) paths.push_back(f.path.empty() ? pathInDirectory(o, f.suffix) : f.path);
  } else {
    for (const CompiledFile &f : files) paths.push_back(f.path.empty() ? outputPath(o) : f.path);
  }
  bool ok = error.empty();
  for (size_t i = 0; ok && i < paths.size(); ++i) ok = writeOutputFile(paths[i], files[i].bytes, &error);
  if (ok) return true;
  driverError(diags, error);
  return false;
}

// -mllvm: LLVM's own options (pass switches such as -unroll-runtime=false),
// set once for this process before anything is compiled.
bool applyLlvmOptions(const std::vector<std::string> &args, std::string *error) {
  if (args.empty()) return true;
  // LLVM names the "program" in its message: "-mllvm: Unknown command line
  // argument '-x'.  Try: ..." (its own hints, about LLVM's help, are cut).
  std::vector<const char *> argv{"-mllvm"};
  for (const std::string &a : args) argv.push_back(a.c_str());
  std::string message;
  llvm::raw_string_ostream errs(message);
  if (llvm::cl::ParseCommandLineOptions(int(argv.size()), argv.data(), "", &errs)) return true;
  errs.flush();
  *error = message.substr(0, std::min(message.find('\n'), message.find("  Try:")));
  return false;
}

int run(const std::vector<std::string> &rawArgs, const std::string &exePath, SourceManager &sm, DiagEngine &diags) {
  std::string error;
  auto args = expandResponseFiles(rawArgs, &error);
  if (!args) throw UsageError{error};
  if (!args->empty() && args->front() == "train-cost-model")
    return trainCostModelCommand(std::vector<std::string>(args->begin() + 1, args->end()), sm, diags);
  // `tkc explain FILE [--measure] [--counters FILE] [options]`: the compile options, and a report.
  bool explain = !args->empty() && args->front() == "explain";
  ExplainOptions explainOpts;
  if (explain) {
    args->erase(args->begin());
    if (!takeExplainOptions(*args, &explainOpts, &error)) throw UsageError{error};
  }
  auto opts = parseCommandLine(*args, &error);
  if (!opts) throw UsageError{error};
  const DriverOptions &o = *opts;
  if (!applyLlvmOptions(o.llvmArgs, &error)) throw UsageError{error};
  configureDiagnostics(diags, o);
  // In JSON mode stderr holds only the diagnostics document.
  if (o.jsonDiagnostics && o.constructTrace && o.constructTraceFile.empty())
    throw UsageError{"--construct-trace writes to stderr, which --diagnostics-format=json keeps for the "
                     "diagnostics: use --construct-trace=FILE"};
  if (o.jsonDiagnostics && o.dumpAfterEachPass)
    throw UsageError{"--dump-after-each-pass writes to stderr, which --diagnostics-format=json keeps for the "
                     "diagnostics"};
  if (o.showHelp) {
    std::cout << helpText();
    return kExitOk;
  }
  if (o.showVersion) {
    std::cout << "tkc " << TK_VERSION << " (LLVM " << LLVM_VERSION_STRING << ")\n"
              << "targets: " << backend::allTargetNames() << "\n";
    return kExitOk;
  }
  std::optional<backend::Target> target = backend::resolveTarget(o.target, &error);
  if (!target) throw UsageError{error};
  const backend::Backend &be = *backend::findBackend(target->desc.family);
  const std::string stdlib = stdlibDir(o, exePath);
  if (o.printHardware) return printHardware(o, be, *target, stdlib, sm, diags);
  if (explain) {
    int status = explainFile(o, explainOpts, be, *target, stdlib, sm, diags, &error);
    if (status < 0) throw UsageError{error};
    return status;
  }
  if (std::string refusal = emitKindRefusal(o, be); !refusal.empty()) throw UsageError{refusal};
  std::optional<Input> in = openInput(o.input, &error);
  if (!in) throw UsageError{error};
  bool fileOutput = o.tune || defaultExtension(o.emit) || o.depfile;
  if (in->isStream() && o.output.empty() && fileOutput && !(o.depsOnly && !o.depTargets.empty()))
    throw UsageError{"the input is a stream (" + in->name + "): name the output with -o FILE (or -o - for stdout)"};
  if (o.depsOnly) {
    if (o.depfile)
      throw UsageError{"-M/-MM (dependencies only) and -MD/-MMD (dependencies beside the output) exclude each other"};
    const char *ext = defaultExtension(o.emit);
    std::string object = fs::path(o.input).stem().string() + (ext ? ext : ".o");
    if (writeDependenciesOnly(o, *in, object, be, *target, stdlib, sm, diags, &error)) return kExitOk;
    if (!error.empty()) driverError(diags, error);
    return kExitCompileError;
  }
  bool inDirectory = outputIsDirectory(o);
  if (inDirectory && (o.tune || !(isCodeEmit(o.emit) || o.emit == EmitKind::Header)))
    throw UsageError{"-o " + o.output + " (a directory) is for code outputs: --emit=obj, llvm, asm, ptx or header"};
  std::string depfilePath = o.depfilePath;
  if (o.depfile && depfilePath.empty()) {
    if (!inDirectory && outputPath(o) == "-") throw UsageError{"-MD with output to stdout needs -MF FILE"};
    depfilePath = inDirectory ? pathInDirectory(o, ".d") : fs::path(outputPath(o)).replace_extension(".d").string();
  }

  std::vector<std::string> deps;
  Compiled files;
  // --construct-trace: on stderr, never into the output stream (`-o -`);
  // --construct-trace=FILE: into FILE.
  std::ostringstream traceText;
  std::ostream *trace = !o.constructTrace ? nullptr : o.constructTraceFile.empty() ? &std::cerr : &traceText;
  files = compile(o, *in, be, *target, stdlib, sm, diags, deps, trace);
  if (!o.constructTraceFile.empty() && !writeOutputFile(o.constructTraceFile, traceText.str(), &error)) {
    driverError(diags, error);
    return kExitCompileError;
  }
  if (!files || diags.hasErrors()) return kExitCompileError;
  std::vector<std::string> written;
  if (!writeOutputs(o, *files, written, diags)) return kExitCompileError;
  // Every output is a target of the depfile's one rule.
  if (o.depfile && !writeOutputFile(depfilePath, depfileText(o, *in, written, deps, stdlib), &error)) {
    driverError(diags, error);
    return kExitCompileError;
  }
  return kExitOk;
}

// Whether the arguments ask for JSON diagnostics (the last
// --diagnostics-format wins), read before parsing so that a usage error is
// reported in the format asked for.
bool wantsJson(const std::vector<std::string> &args) {
  bool json = false;
  for (const std::string &a : args)
    if (a.rfind("--diagnostics-format=", 0) == 0) json = a == "--diagnostics-format=json";
  return json;
}

} // namespace

int runTkc(const std::vector<std::string> &args, const std::string &exePath) {
  SourceManager sm;
  DiagEngine diags(sm);
  if (wantsJson(args)) diags.setFormat(DiagEngine::Format::Json);
  int status;
  try {
    status = run(args, exePath, sm, diags);
  } catch (const UsageError &e) {
    driverError(diags, e.message);
    status = kExitUsage;
  } catch (const std::exception &e) { // InternalError and anything unexpected
    if (diags.format() == DiagEngine::Format::Json) diags.error(SourceLoc{}, std::string("internal error: ") + e.what());
    else std::cerr << "tkc: internal error: " << e.what() << "\n";
    status = kExitInternal;
  }
  // JSON: the one document, after everything else (text was written as it came).
  diags.flush();
  return status;
}

} // namespace tk::driver
