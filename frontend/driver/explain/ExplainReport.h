// The `tkc explain` report: what the driver gathered about one compile,
// rendered as one self-contained HTML page (docs/explain.md).
#pragma once
#include "frontend/driver/explain/ExecutorCounters.h"
#include "frontend/driver/explain/HotLoop.h"
#include "frontend/driver/explain/LdmAccounting.h"
#include "frontend/driver/explain/MappingPictures.h"
#include "frontend/driver/explain/RooflinePlot.h"
#include "ir/Diagnostics.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tk::explain {

// One statement of an export's op and what fusion did with it.
struct StatementFate {
  SourceLoc loc;
  std::string text;    // `C[i, j] = ...` as the tensor IR prints it
  std::string outcome; // "anchor", "fused ...", or the refusal's reason
  bool refused = false;
};

struct ExportReport {
  std::string symbol;       // the exported C function
  std::string opName;
  std::string kernelKind;   // "written", "default schedule", "constructed (Pass)", ...
  std::string kernelName;
  int sourceFile = -1;      // the file holding the kernel (or the op, for a schedule tkc made)
  std::string kernelSource; // the kernel as .tk (--emit=kernel)
  std::vector<std::string> kernelSteps; // the scheduler's kernel-level passes, in order
  std::vector<StatementFate> statements;
  std::vector<MappingPicture> pictures;
  std::string loopText;
  std::vector<SourceLoc> loopLocs; // per line of loopText
  std::string codeKind;            // "x86-64 assembly", "PTX", or "" for C sources
  std::optional<HotLoop> hotLoop;
  std::optional<LdmReport> ldm; // Sunway
  int64_t ldmCapacity = 0;      // bytes of one CPE's LDM (the hardware description)
  OpWork work;
  Roofs roofs;
  ir::ScalarType dtype = ir::ScalarType::F32;
  std::optional<double> measuredSeconds;
  std::string measureNote; // why nothing was measured, when --measure was asked
  // --counters: the executor's counters of this export's device kernels
  // (empty: none of them was launched in the recorded run).
  std::optional<std::vector<KernelCounters>> counters;
};

struct ReportInput {
  std::string inputName;   // as given on the command line
  std::string target;      // --target
  std::string hardware;    // the hardware description's name
  std::map<std::string, int64_t> sizes; // the sizes pictures and the roofline use
  std::vector<Diagnostic> diagnostics;
  std::string constructTrace;
  std::string countersFile; // --counters FILE, as given
  std::vector<ExportReport> exports;
};

// The page. Source text comes from `sm` (the files the locations name).
std::string renderReport(const ReportInput &in, const SourceManager &sm, const DiagEngine &diags);

} // namespace tk::explain
