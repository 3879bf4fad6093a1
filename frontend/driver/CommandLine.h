// tkc's command line: response-file expansion and option parsing. Parsing
// only records what was asked; the driver resolves defaults that need the
// file system (output names, the stdlib directory).
#pragma once
#include "scheduler/Pipeline.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tk::driver {

enum class EmitKind { Ast, Tensor, Mapping, Kernel, Loop, LLVM, Asm, Obj, Header, Ptx };
enum class ColorMode { Auto, Always, Never };

struct DriverOptions {
  std::string input;
  std::string output;        // empty: derived from the input name; ending in '/': a directory (Driver.h)
  std::string headerPath;    // --header=FILE, -h FILE: the C header too
  EmitKind emit = EmitKind::Obj;
  int optLevel = 2;
  std::vector<std::string> llvmArgs; // -mllvm ARG: options for LLVM's passes (clang's -mllvm)
  int jobs = 0;              // -j N, --jobs=N: code-generation threads; 0 = one per core
  std::string target = "host";
  std::vector<std::string> includeDirs;
  std::string stdlibDir;     // empty: TK_STDLIB / installed / source default
  bool depfile = false;      // -MD, -MMD: write a depfile beside the compile
  bool depsOnly = false;     // -M, -MM: write the dependencies instead of compiling
  bool depsSkipStdlib = false; // -MMD, -MM: leave out files of the stdlib (gcc's system headers)
  bool depPhony = false;     // -MP: a phony rule for every dependency but the input
  std::string depfilePath;   // -MF
  std::vector<std::string> depTargets; // -MT (as given) and -MQ (quoted for make), in order
  ColorMode color = ColorMode::Auto;
  bool jsonDiagnostics = false;
  bool werror = false;
  bool showVersion = false;
  bool showHelp = false;
  bool checkMappings = false; // --check-mappings (docs/driver.md)
  bool dumpAfterEachPass = false; // --dump-after-each-pass: scheduler IR after every pass, on stderr
  bool printHardware = false;     // --print-hw: print the hardware description in effect and exit
  // Construction optimizer (docs/construct.md).
  std::string hardware;      // --hw: a .hw file or a name in <stdlib>/targets; empty = by target family
  bool constructTrace = false;     // --construct-trace: on stderr
  std::string constructTraceFile; // --construct-trace=FILE
  bool constructContractions = true; // --schedule=construct (default) | default
  bool swtvmLdmSizing = false;        // --schedule=swtvm
  bool sunwayFixedBuffers = false;    // --schedule=fixed64
  bool sunwayNaturalOrder = false;    // --sunway-loop-order=natural | reordered (default)
  bool sunwayDoubleBuffer = true;     // --sunway-dma=double (default) | sync
  // --sunway-broadcast=on (default) | rows | off
  PipelineOptions::SunwayBroadcast sunwayBroadcast = PipelineOptions::SunwayBroadcast::On;
  std::vector<std::pair<std::string, int64_t>> shapeHints; // --shape-hint=SYM=VALUE
  std::string rank = "roofline"; // --rank=roofline | measure | model
  // Learned cost model (docs/costmodel.md).
  std::string costModel;        // --cost-model=FILE; empty: <stdlib>/costmodel/cpu.tkcm
  std::string costModelHead;    // --cost-model-head=ID; empty: the hardware id of --hw
  int measureTop = 0;           // --measure-top=K: time the K best-ranked candidates (0: unset)
  std::string recordsOut;       // --records-out=FILE: append timed candidates as records
  // LoopTune (docs/looptune.md).
  bool tune = false;            // `tkc tune FILE`: write tuning records instead of code
  std::string tuningRecords;    // --tuning-records=FILE: apply recorded schedules
  std::string tuneSearch = "policy"; // --search=
  double tuneBudget = 1.0;      // --budget=SECONDS per export (search baselines)
  std::string tunePolicy;       // --policy=FILE; empty: <stdlib>/looptune/policy.qnet
};

// Replaces every `@file` argument by the arguments the file holds
// (whitespace separated; '...' and "..." quote; a backslash escapes the next
// character outside single quotes), recursively up to 16 levels. Returns
// nullopt and sets *error for an unreadable file or too deep nesting.
std::optional<std::vector<std::string>> expandResponseFiles(const std::vector<std::string> &args,
                                                            std::string *error);

// Splits the contents of one response file into arguments.
std::vector<std::string> splitResponseFile(const std::string &text);

// Parses expanded arguments (without argv[0]). Returns nullopt and sets
// *error (a message for `tkc: error: ...`) on a usage error.
std::optional<DriverOptions> parseCommandLine(const std::vector<std::string> &args, std::string *error);

// The searches `tkc tune --search=` accepts, and their list for messages.
bool isTuneSearch(const std::string &name);
std::string tuneSearchNames();

// The `--help` text.
std::string helpText();

} // namespace tk::driver
