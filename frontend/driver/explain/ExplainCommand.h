// `tkc explain FILE.tk [-o report.html] [--measure] [--counters FILE] [compile options]`: one
// self-contained HTML page that shows what tkc did with each export and why
// (docs/explain.md).
#pragma once
#include "backends/Backend.h"
#include "frontend/driver/CommandLine.h"
#include "ir/Diagnostics.h"

#include <string>
#include <vector>

namespace tk::driver {

// What `tkc explain` takes beyond the compile options.
struct ExplainOptions {
  bool measure = false;     // --measure: time each CPU export once at the report's sizes
  std::string countersFile; // --counters FILE: the PTX executor's launch records (TK_CUDA_EMU_STATS=FILE)
};

// Removes explain's own options from `args` into *out. False with *error
// set for a malformed one (--counters without a file).
bool takeExplainOptions(std::vector<std::string> &args, ExplainOptions *out, std::string *error);

// Compiles `o.input` as the options say (target, --hw, --schedule,
// --shape-hint, ...) with the construction trace on, gathers the report
// and writes it to `o.output` (default: the input's stem + .html; `-` is
// stdout). Diagnostics go to `diags` as in a compile and into the report;
// the report is written even when the compile fails. Returns the exit
// status, or -1 with *usage set for a usage error.
int explainFile(const DriverOptions &o, const ExplainOptions &x, const backend::Backend &be, const backend::Target &target,
                const std::string &stdlib, SourceManager &sm, DiagEngine &diags, std::string *usage);

} // namespace tk::driver
