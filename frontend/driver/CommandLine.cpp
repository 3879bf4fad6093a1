#include "frontend/driver/CommandLine.h"

#include "frontend/driver/Depfile.h"

#include "frontend/ResolveImports.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace tk::driver {

static constexpr int kMaxResponseDepth = 16;
// The construction multiplies assumed extents and tile counts in 64-bit
// integers; 2^40 keeps every such product of a few extents far from
// overflow and is far beyond any real tensor dimension.
static constexpr long long kMaxShapeHint = 1LL << 40;

// `v` as a whole decimal count in [lo, hi]; nullopt for anything else.
static std::optional<int> countIn(const std::string &v, long lo, long hi) {
  char *end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < lo || n > hi) return std::nullopt;
  return static_cast<int>(n);
}

std::vector<std::string> splitResponseFile(const std::string &text) {
  std::vector<std::string> out;
  std::string cur;
  bool inArg = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote == '\'') {
      if (c == '\'') quote = 0;
      else cur += c;
    } else if (c == '\\' && i + 1 < text.size()) {
      cur += text[++i];
      inArg = true;
    } else if (quote == '"') {
      if (c == '"') quote = 0;
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      inArg = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      if (inArg) out.push_back(cur);
      cur.clear();
      inArg = false;
    } else {
      cur += c;
      inArg = true;
    }
  }
  if (inArg) out.push_back(cur);
  return out;
}

static bool expand(const std::vector<std::string> &args, int depth, std::vector<std::string> &out,
                   std::string *error) {
  for (const std::string &a : args) {
    if (a.size() < 2 || a[0] != '@') {
      out.push_back(a);
      continue;
    }
    if (depth >= kMaxResponseDepth) {
      *error = fmt::format("response files nested more than {} levels deep at '{}'", kMaxResponseDepth, a);
      return false;
    }
    std::string text;
    if (!readSourceFile(a.substr(1), text)) {
      *error = "cannot read response file '" + a.substr(1) + "' (no such regular file, or larger than 64 MiB)";
      return false;
    }
    if (!expand(splitResponseFile(text), depth + 1, out, error)) return false;
  }
  return true;
}

std::optional<std::vector<std::string>> expandResponseFiles(const std::vector<std::string> &args,
                                                            std::string *error) {
  std::vector<std::string> out;
  if (!expand(args, 0, out, error)) return std::nullopt;
  return out;
}

static std::optional<EmitKind> parseEmit(const std::string &v, std::string *error) {
  static const std::pair<const char *, EmitKind> kinds[] = {
      {"ast", EmitKind::Ast},   {"tensor", EmitKind::Tensor}, {"mapping", EmitKind::Mapping}, {"kernel", EmitKind::Kernel},
      {"loop", EmitKind::Loop}, {"llvm", EmitKind::LLVM},     {"asm", EmitKind::Asm},
      {"obj", EmitKind::Obj},   {"header", EmitKind::Header}, {"ptx", EmitKind::Ptx}};
  for (const auto &[name, kind] : kinds)
    if (v == name) return kind;
  if (v == "sunway")
    *error = "--emit=" + v + " is not available in this build (target backend arrives in a later release)";
  else
    *error = "invalid value '" + v + "' for --emit (expected ast, tensor, mapping, kernel, loop, llvm, asm, obj, header or ptx)";
  return std::nullopt;
}

std::optional<DriverOptions> parseCommandLine(const std::vector<std::string> &args, std::string *error) {
  DriverOptions o;
  auto startsWith = [](const std::string &s, const char *p) { return s.rfind(p, 0) == 0; };
  // Value of `-X value` / `-Xvalue` (short) or `--x=value` (long).
  auto takeValue = [&](size_t &i, const std::string &flag, std::string &out) {
    const std::string &a = args[i];
    if (a.size() > flag.size()) {
      out = a.substr(flag.size());
      return true;
    }
    if (i + 1 >= args.size()) {
      *error = "missing argument to '" + flag + "'";
      return false;
    }
    out = args[++i];
    return true;
  };
  bool emitGiven = false;
  std::string emitName;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    std::string v;
    if (a == "--help" || (a == "-h" && i + 1 == args.size())) o.showHelp = true;
    else if (startsWith(a, "-h") && a != "-h" && !startsWith(a, "--")) o.headerPath = a.substr(2);
    else if (a == "-h") o.headerPath = args[++i]; // ISPC's -h FILE
    else if (startsWith(a, "--header=")) o.headerPath = a.substr(9);
    else if (a == "--version") o.showVersion = true;
    else if (a == "-MD") o.depfile = true;
    else if (a == "-MMD") o.depfile = o.depsSkipStdlib = true;
    else if (a == "-M") o.depsOnly = true;
    else if (a == "-MM") o.depsOnly = o.depsSkipStdlib = true;
    else if (a == "-MP") o.depPhony = true;
    else if (a == "-Werror") o.werror = true;
    else if (a.size() == 3 && startsWith(a, "-O") && a[2] >= '0' && a[2] <= '3') o.optLevel = a[2] - '0';
    else if (startsWith(a, "-j") || startsWith(a, "--jobs=")) {
      if (startsWith(a, "--jobs=")) v = a.substr(7);
      else if (!takeValue(i, "-j", v)) return std::nullopt;
      std::optional<int> n = countIn(v, 1, 256);
      if (!n) {
        *error = "'" + v + "' is not a thread count for -j (1 to 256)";
        return std::nullopt;
      }
      o.jobs = *n;
    }
    else if (a == "-mllvm") {
      if (i + 1 >= args.size()) {
        *error = "missing argument to '-mllvm'";
        return std::nullopt;
      }
      o.llvmArgs.push_back(args[++i]);
    }
    else if (startsWith(a, "-MF")) { if (!takeValue(i, "-MF", o.depfilePath)) return std::nullopt; }
    else if (startsWith(a, "-MT") || startsWith(a, "-MQ")) {
      // Like gcc: -MT is written as given, -MQ quoted for make; each adds one.
      std::string flag = a.substr(0, 3);
      if (!takeValue(i, flag, v)) return std::nullopt;
      o.depTargets.push_back(flag == "-MQ" ? escapeDepfilePath(v) : v);
    }
    else if (startsWith(a, "-o")) { if (!takeValue(i, "-o", o.output)) return std::nullopt; }
    else if (startsWith(a, "-I")) {
      if (!takeValue(i, "-I", v)) return std::nullopt;
      o.includeDirs.push_back(v);
    } else if (startsWith(a, "--emit=")) {
      auto k = parseEmit(a.substr(7), error);
      if (!k) return std::nullopt;
      // One run writes one kind (plus --header=FILE): a second, different
      // --emit would silently win over the first.
      if (emitGiven && *k != o.emit) {
        *error = "conflicting --emit=" + emitName + " and " + a + " (one kind per run; --header=FILE also writes "
                 "the C header)";
        return std::nullopt;
      }
      emitGiven = true;
      emitName = a.substr(7);
      o.emit = *k;
    } else if (startsWith(a, "--target=")) {
      o.target = a.substr(9);
    } else if (startsWith(a, "--stdlib=")) o.stdlibDir = a.substr(9);
    else if (a == "tune" && i == 0) o.tune = true;
    else if (startsWith(a, "--tuning-records=")) o.tuningRecords = a.substr(17);
    else if (startsWith(a, "--policy=")) o.tunePolicy = a.substr(9);
    else if (startsWith(a, "--search=")) {
      o.tuneSearch = a.substr(9);
      if (!isTuneSearch(o.tuneSearch)) {
        *error = "invalid value '" + o.tuneSearch + "' for --search (expected " + tuneSearchNames() + ")";
        return std::nullopt;
      }
    } else if (startsWith(a, "--budget=")) {
      v = a.substr(9);
      char *end = nullptr;
      o.tuneBudget = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(o.tuneBudget > 0 && o.tuneBudget <= 3600)) {
        *error = "invalid value '" + v + "' for --budget (expected seconds, > 0 and <= 3600)";
        return std::nullopt;
      }
    }
    else if (startsWith(a, "--hw=")) o.hardware = a.substr(5);
    else if (a == "--construct-trace") o.constructTrace = true;
    else if (startsWith(a, "--construct-trace=")) {
      o.constructTrace = true;
      o.constructTraceFile = a.substr(18);
    }
    else if (a == "--check-mappings") o.checkMappings = true;
    else if (a == "--dump-after-each-pass") o.dumpAfterEachPass = true;
    else if (a == "--print-hw") o.printHardware = true;
    else if (a == "--schedule=construct") o.constructContractions = true;
    else if (a == "--schedule=default") o.constructContractions = false;
    else if (a == "--schedule=swtvm") o.constructContractions = o.swtvmLdmSizing = true;
    else if (a == "--schedule=fixed64") o.constructContractions = o.sunwayFixedBuffers = true;
    else if (a == "--sunway-loop-order=natural") o.sunwayNaturalOrder = true;
    else if (a == "--sunway-loop-order=reordered") o.sunwayNaturalOrder = false;
    else if (startsWith(a, "--sunway-loop-order=")) {
      *error = "invalid value '" + a.substr(20) + "' for --sunway-loop-order (expected reordered or natural)";
      return std::nullopt;
    }
    else if (a == "--sunway-dma=double") o.sunwayDoubleBuffer = true;
    else if (a == "--sunway-dma=sync") o.sunwayDoubleBuffer = false;
    else if (startsWith(a, "--sunway-dma=")) {
      *error = "invalid value '" + a.substr(13) + "' for --sunway-dma (expected double or sync)";
      return std::nullopt;
    }
    else if (a == "--sunway-broadcast=on") o.sunwayBroadcast = PipelineOptions::SunwayBroadcast::On;
    else if (a == "--sunway-broadcast=rows") o.sunwayBroadcast = PipelineOptions::SunwayBroadcast::Rows;
    else if (a == "--sunway-broadcast=off") o.sunwayBroadcast = PipelineOptions::SunwayBroadcast::Off;
    else if (startsWith(a, "--sunway-broadcast=")) {
      *error = "invalid value '" + a.substr(19) + "' for --sunway-broadcast (expected on, rows or off)";
      return std::nullopt;
    }
    else if (startsWith(a, "--schedule=")) {
      *error = "invalid value '" + a.substr(11) + "' for --schedule (expected construct, default, swtvm or fixed64)";
      return std::nullopt;
    }
    else if (startsWith(a, "--rank=")) {
      v = a.substr(7);
      if (v == "roofline" || v == "measure" || v == "model") o.rank = v;
      else {
        *error = "invalid value '" + v + "' for --rank (expected roofline, measure or model)";
        return std::nullopt;
      }
    } else if (startsWith(a, "--cost-model=")) o.costModel = a.substr(13);
    else if (startsWith(a, "--cost-model-head=")) o.costModelHead = a.substr(18);
    else if (startsWith(a, "--records-out=")) o.recordsOut = a.substr(14);
    else if (startsWith(a, "--measure-top=")) {
      v = a.substr(14);
      std::optional<int> k = countIn(v, 1, 1024);
      if (!k) {
        *error = "invalid value '" + v + "' for --measure-top (expected a count of candidates, 1 to 1024)";
        return std::nullopt;
      }
      o.measureTop = *k;
    } else if (startsWith(a, "--shape-hint=")) {
      v = a.substr(13);
      size_t eq = v.find('=');
      char *end = nullptr;
      errno = 0;
      long long n = eq == std::string::npos ? 0 : std::strtoll(v.c_str() + eq + 1, &end, 10);
      if (eq == 0 || eq == std::string::npos || !end || *end || n < 1 || errno == ERANGE ||
          n > kMaxShapeHint) {
        *error = fmt::format("invalid value '{}' for --shape-hint (expected SYMBOL=N with 1 <= N <= {})", v,
                             kMaxShapeHint);
        return std::nullopt;
      }
      o.shapeHints.push_back({v.substr(0, eq), n});
    }
    else if (startsWith(a, "--color=")) {
      v = a.substr(8);
      if (v == "auto") o.color = ColorMode::Auto;
      else if (v == "always") o.color = ColorMode::Always;
      else if (v == "never") o.color = ColorMode::Never;
      else {
        *error = "invalid value '" + v + "' for --color (expected auto, always or never)";
        return std::nullopt;
      }
    } else if (startsWith(a, "--diagnostics-format=")) {
      v = a.substr(21);
      if (v != "text" && v != "json") {
        *error = "invalid value '" + v + "' for --diagnostics-format (expected text or json)";
        return std::nullopt;
      }
      o.jsonDiagnostics = v == "json";
    } else if (a.size() > 1 && a[0] == '-') {
      *error = "unknown argument '" + a + "' (see tkc --help)";
      return std::nullopt;
    } else if (!o.input.empty()) {
      *error = "more than one input file ('" + o.input + "' and '" + a + "'); tkc compiles one file at a time";
      return std::nullopt;
    } else {
      o.input = a;
    }
  }
  if (o.input.empty() && !o.showHelp && !o.showVersion && !o.printHardware) {
    *error = "no input file (usage: tkc [options] file.tk)";
    return std::nullopt;
  }
  return o;
}

namespace {
const char *const kTuneSearches[] = {"policy", "greedy1", "greedy2", "beam2dfs", "beam4dfs",
                                     "beam2bfs", "beam4bfs", "random"};
} // namespace

bool isTuneSearch(const std::string &name) {
  for (const char *s : kTuneSearches)
    if (name == s) return true;
  return false;
}

std::string tuneSearchNames() {
  std::string out;
  for (const char *s : kTuneSearches) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

std::string helpText() {
  return R"(usage: tkc [options] file.tk
       tkc tune [-o FILE.tkr] [--search=S] [--budget=SEC] [--policy=FILE] [--records-out=FILE] file.tk
         tune the loop order of each constant-shape export (docs/looptune.md);
         S: policy (default, the learned Q-network), greedy1, greedy2,
         beam2dfs, beam4dfs, beam2bfs, beam4bfs, random
       tkc train-cost-model -o MODEL.tkcm [--epochs=N] [--seed=N] [--width=N] [--heads=N]
         [--lr=X] [--loss=lambdarank|mse] [--validation=F] [--seq=N] RECORDS.jsonl...
         train the learned cost model on records (docs/costmodel.md)
       tkc explain [-o REPORT.html] [--measure] [--counters FILE] [options] file.tk
         one self-contained HTML page of what tkc did with each export and why:
         kernels, task mappings, loops, hot loop, construction, roofline
         (docs/explain.md); --measure times CPU exports at the report's sizes;
         --counters adds the PTX executor's counters of a run
         (TK_CUDA_EMU_STATS=FILE) to each cuda export

Compiles one .tk file (and the files it imports) for a CPU or CUDA target.

Output:
  -o FILE                 output file ('-' = stdout); default: the input's
                          basename with .o/.ll/.s/.h in the current directory
                          (ast/tensor/mapping/kernel/loop dumps default to stdout)
  -o DIR/                 (a trailing '/') write into DIR, created if missing, as
                          BASENAME.ext; --emit=obj (the default) then writes the
                          object, the header and, for cuda targets, the PTX
  --emit=KIND             ast | tensor | mapping | kernel | loop | llvm | asm | obj
                          | header | ptx (default obj; ptx for cuda targets, asm for
                          CPU ones); one kind per run; kernel = the schedules
                          chosen, as .tk kernels to paste and edit
  --header=FILE, -h FILE  also write the C header to FILE in the same run
  -O0 -O1 -O2 -O3         LLVM optimization level (default -O2)
  -mllvm ARG              pass ARG to LLVM's option parser (as clang's -mllvm)
  -j N, --jobs=N          compile a CPU object's exports on N threads (default: one
                          per core; -j1 under a parallel make that fills the cores);
                          the object does not depend on N
  --target=NAME           host | x86_64 | x86_64-avx2 | x86_64-avx512
                          | x86_64-avx512vnni (default host)
                          | cuda-sm_80 | cuda-sm_90 | cuda-sm_90a | cuda (= cuda-sm_90);
                          only host tunes for the machine that compiles: a named
                          target uses its own description (see --hw), so every
                          build machine writes the same bytes
Input:
  file.tk                 the input; '-', /dev/stdin, /dev/fd/N or a FIFO are read
                          once (at most 64 MiB; '-' is named <stdin>); a stream
                          input needs -o for file outputs
  -I DIR, -IDIR           search DIR for imports (after the importing file's directory)
  --stdlib=DIR            directory holding std/*.tk (default: $TK_STDLIB, then
                          <tkc>/../share/tk/stdlib, then the source tree's stdlib)
  @FILE                   read more arguments from FILE
Construction optimizer (fills '?' holes, docs/construct.md):
  --hw=FILE|NAME          hardware description (docs/hardware.md): a .hw file, or a
                          name in <stdlib>/targets (zen5-2c, h100, ...), or host;
                          default: host for --target=host, <stdlib>/targets/NAME.hw
                          for a named CPU target, h100 for cuda targets
  --shape-hint=SYM=N      assume shape symbol SYM = N while constructing (default 1024,
                          3 for a window extent such as conv2d's R and S); 1 <= N <= 2^40
  --tuning-records=FILE   apply the schedules `tkc tune` recorded (docs/looptune.md)
  --print-hw              print the hardware description in effect (--hw, or the
                          target's default) and exit; no input needed
  --construct-trace       print the construction path on stderr
  --construct-trace=FILE  write it to FILE
  --rank=roofline         rank candidates by the analytical estimate (the default)
  --rank=measure          compile and time the best candidates on this CPU, keep
                          the fastest (CPU targets only)
  --rank=model            rank candidates by the learned cost model (docs/costmodel.md)
  --cost-model=FILE       its weights (default <stdlib>/costmodel/cpu.tkcm)
  --cost-model-head=ID    the machine whose head scores (default: the id of --hw)
  --measure-top=K         time the K best-ranked candidates, keep the fastest
  --records-out=FILE      append every timed candidate to FILE (docs/records.md)
  --schedule=construct    ops without a kernel that are contractions (matmul, bmm)
                          get a packed, cache-blocked kernel sized for --hw (default)
  --schedule=default      keep the plain default schedule for them
  --schedule=swtvm        sunway: tile contractions by swTVM's LDM sizing instead of
                          the fastest modelled tiling (for comparison)
  --schedule=fixed64      sunway: every LDM buffer iterator at 64 elements, without
                          LDM sizing (for comparison)
  --sunway-dma=double     sunway: fetch the next LDM block while computing on this
                          one where the LDM has room (default)
  --sunway-dma=sync       sunway: every DMA completes before the code goes on
  --sunway-broadcast=on   sunway: run the CPEs in lockstep where an operand is shared
                          and broadcast its blocks from one CPE (default)
  --sunway-broadcast=rows sunway: 8 x 8 rounds with row broadcasts wherever an
                          operand is shared by a row or a column of CPEs
  --sunway-broadcast=off  sunway: every CPE fetches its own blocks
  --sunway-loop-order=natural
                          sunway: keep the reduction inside each tile's loops, as the
                          op writes it (default reordered: reduction blocks outside;
                          for comparison)
Dependencies:
  (as gcc; a depfile lists the input, its imports, the --hw file and the
  --tuning-records/--policy files: everything that changes the output)
  -MD                     also write a Make/Ninja depfile (on success only)
  -MMD                    the same without the stdlib's files (gcc's system headers)
  -M, -MM                 write only the dependencies (to -MF, else -o, else stdout)
                          instead of compiling; -MM without the stdlib's files
  -MF FILE                depfile path (default: the output with extension .d)
  -MT TARGET              a target of the rule, as given (repeatable; default: every
                          output path)
  -MQ TARGET              the same, quoted for make ('$' -> '$$', ' ' -> '\ ')
  -MP                     an empty rule for every dependency but the input, so make
                          survives a deleted import
Diagnostics:
  --color=auto|always|never   colour (auto: stderr is a terminal and NO_COLOR is unset)
  --diagnostics-format=text|json
  -Werror                 treat warnings as errors
Other:
  --check-mappings        cpu code records who writes each output element and reports those
                          never written or written by two workers at once (stderr, status 8)
  --dump-after-each-pass  print the mapping/loop IR after every scheduler pass on stderr
  --version, --help

Exit status: 0 success, 1 compile errors, 2 usage errors, 4 internal compiler error.
)";
}

} // namespace tk::driver
