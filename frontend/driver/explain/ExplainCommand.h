// `tkc explain FILE.tk [-o report.html] [--measure] [compile options]`: one
// self-contained HTML page that shows what tkc did with each export and why
// (docs/explain.md).
#pragma once
#include "backends/Backend.h"
#include "frontend/driver/CommandLine.h"
#include "ir/Diagnostics.h"

#include <string>

namespace tk::driver {

// Compiles `o.input` as the options say (target, --hw, --schedule,
// --shape-hint, ...) with the construction trace and the pass dumps on,
// gathers the report and writes it to `o.output` (default: the input's
// stem + .html; `-` is stdout). `measure` times each CPU export once at
// the report's sizes. Diagnostics go to `diags` as in a compile and into
// the report; the report is written even when the compile fails. Returns
// the exit status, or -1 with *usage set for a usage error.
int explainFile(const DriverOptions &o, bool measure, const backend::Backend &be, const backend::Target &target,
                const std::string &stdlib, SourceManager &sm, DiagEngine &diags, std::string *usage);

} // namespace tk::driver
