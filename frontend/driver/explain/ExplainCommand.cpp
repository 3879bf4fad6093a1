#include "frontend/driver/explain/ExplainCommand.h"

#include "backends/x86/X86Backend.h"
#include "frontend/driver/CompileOptions.h"
#include "frontend/driver/EmitKinds.h"
#include "frontend/driver/Hardware.h"
#include "frontend/driver/InputFile.h"
#include "frontend/driver/JitMeasure.h"
#include "frontend/driver/OutputFile.h"
#include "frontend/driver/RankingOptions.h"
#include "frontend/driver/explain/ExplainReport.h"
#include "ir/IRRewrite.h"
#include "ir/PrintLoopIRLines.h"
#include "scheduler/Pipeline.h"
#include "scheduler/construct/FillHoles.h"
#include "scheduler/construct/LoopNest.h"

#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

namespace tk::driver {

namespace fs = std::filesystem;
using namespace explain;

namespace {

// Sizes the pictures, the roofline and --measure use: the values the
// construction optimizer assumes (the --shape-hint values, else its
// defaults: 1024 for a shape symbol, 3 for a window extent, 1 for an
// integer scalar parameter), for every export's op.
std::map<std::string, int64_t> reportSizes(const ir::Module &m, const std::map<std::string, int64_t> &hints) {
  std::map<std::string, int64_t> sizes;
  for (const ir::Export &e : m.exports) sizes.merge(construct::assumedValues(*e.op, hints));
  return sizes;
}

// The kind of kernel lowered, from the kernel-level passes that built it:
// the last constructor named wins (ConstructStages runs the constructors of
// its stages first).
std::string kindOf(const ir::Export &e, const std::vector<std::string> &passes) {
  if (e.kernel) {
    for (const ir::Hole &h : e.kernel->holes)
      if (!h.value) return "written, holes filled by construction";
    return "written";
  }
  for (auto it = passes.rbegin(); it != passes.rend(); ++it)
    if (it->find("Construct") != std::string::npos) return "constructed (" + *it + ")";
  return "default schedule";
}

std::string trimmed(std::string_view s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? "" : std::string(s.substr(b, e - b + 1));
}

// What became of each statement of the export's op: a refused fusion says
// why it stayed apart; otherwise an intermediate that the kernel no longer
// stores was fused into its readers, and one it still stores is a tensor of
// its own.
std::vector<StatementFate> statementFates(const ir::Export &e, const ExportSchedule &sched, const SourceManager &sm) {
  const ir::Kernel *k = sched.kernel.get();
  const std::vector<std::string> &passes = sched.kernelPasses;
  bool rows = std::find(passes.begin(), passes.end(), "FuseRows") != passes.end();
  std::set<std::string> stored;
  if (k) ir::visitMStmt(k->body, [&](const ir::MStmt &s) {
    if (s.kind == ir::MStmt::Kind::Store) stored.insert(s.tensor->name);
  });
  std::vector<StatementFate> out;
  for (const ir::Assign &a : e.op->body) {
    StatementFate f;
    f.loc = a.loc;
    f.text = a.loc.valid() ? trimmed(sm.lineText(a.loc.file, a.loc.line)) : a.target->name + "[..] = ..";
    for (const RefusedFusion &r : sched.refusedFusions)
      if (r.loc.file == a.loc.file && r.loc.line == a.loc.line) {
        f.refused = true;
        f.outcome = r.message;
      }
    if (f.refused) {
    } else if (e.kernel) {
      f.outcome = "computed as the kernel writes it";
    } else if (ir::isOutputOf(*e.op, a.target.get())) {
      f.outcome = "writes the output " + a.target->name;
    } else if (stored.count(a.target->name)) {
      f.outcome = "stored: " + a.target->name + " is written to memory and read back by the statements after it" +
                  (rows ? " (row fusion computes a row of it in the task that reads it)" : "");
    } else {
      f.outcome = "fused: " + a.target->name + " is never stored; its values are computed where they are read";
    }
    out.push_back(std::move(f));
  }
  return out;
}

void measureExport(ExportReport &r, const ir::LoweredFunc &f, const CpuTarget *cpu,
                   const std::map<std::string, int64_t> &sizes) {
  if (!cpu) {
    r.measureNote = "not measured: --measure times code for this CPU only";
    return;
  }
  try {
    looptune::JitKernel jit(f, *cpu, sizes);
    double s = jit.bestSeconds(0.05, 5, 0.5);
    if (std::isfinite(s) && s > 0) r.measuredSeconds = s;
    else r.measureNote = "not measured: the buffers at these sizes exceed 2 GiB";
  } catch (const std::exception &ex) {
    r.measureNote = std::string("not measured: ") + ex.what();
  }
}

// The records of --counters FILE; nullopt with *usage set when the file
// cannot be read or is not such records.
std::optional<std::vector<CounterRecord>> readCounters(const std::string &file, std::string *usage) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    *usage = "cannot read --counters file '" + file + "'";
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string error;
  auto records = parseCounterRecords(text.str(), &error);
  if (!records) *usage = "--counters file '" + file + "' holds no PTX executor records (TK_CUDA_EMU_STATS=FILE): " + error;
  return records;
}

} // namespace

bool takeExplainOptions(std::vector<std::string> &args, ExplainOptions *out, std::string *error) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--measure") {
      out->measure = true;
    } else if (a == "--counters" || a.starts_with("--counters=")) {
      std::string v = a == "--counters" ? (i + 1 < args.size() ? args[++i] : "") : a.substr(11);
      if (v.empty()) {
        *error = "--counters needs a file: the PTX executor's launch records (TK_CUDA_EMU_STATS=FILE)";
        return false;
      }
      out->countersFile = v;
    } else {
      rest.push_back(a);
    }
  }
  args = std::move(rest);
  return true;
}

int explainFile(const DriverOptions &o, const ExplainOptions &x, const backend::Backend &be, const backend::Target &target,
                const std::string &stdlib, SourceManager &sm, DiagEngine &diags, std::string *usage) {
  std::optional<Input> in = openInput(o.input, usage);
  if (!in) return -1;
  std::string output = o.output.empty() ? fs::path(o.input).stem().string() + ".html" : o.output;
  if (in->isStream() && o.output.empty()) {
    *usage = "the input is a stream (" + in->name + "): name the report with -o FILE";
    return -1;
  }
  std::optional<std::vector<CounterRecord>> counters;
  if (!x.countersFile.empty() && !(counters = readCounters(x.countersFile, usage))) return -1;
  ReportInput report;
  report.inputName = in->name;
  report.countersFile = x.countersFile;
  report.target = o.target;
  std::optional<ir::Module> m =
      buildModule(in->name, frontendOptions(o, stdlib, target.desc.family), sm, diags, nullptr, in->source());
  // An input that could not be read (already said, without a location) leaves nothing to report on.
  bool located = std::any_of(diags.all().begin(), diags.all().end(), [](const Diagnostic &d) { return d.loc.valid(); });
  if (!m && !located) return 1;
  std::ostringstream trace;
  auto construct = constructOptions(o, be.defaultHardware(target), stdlib, sm, diags, &trace);
  const CpuTarget *cpu = target.desc.family == ir::TargetFamily::Cpu ? &std::any_cast<const CpuTarget &>(target.spec)
                                                                     : nullptr;
  if (construct && !setRanking(o, cpu, stdlib, *construct, sm, diags, nullptr, usage) && !usage->empty()) return -1;
  if (m && construct && !diags.hasErrors()) {
    report.hardware = construct->hw.name;
    report.sizes = reportSizes(*m, construct->shapes);
    PipelineOptions po = pipelineOptions(o, target.desc);
    po.construct = &*construct;
    std::vector<ExportSchedule> schedules;
    std::vector<ir::LoweredFunc> funcs = lowerModule(*m, po, diags, &schedules);
    std::string code;
    backend::EmitOptions eo{o.optLevel, fs::path(in->name).filename().string()};
    backend::OutputKind kind =
        be.canEmit(backend::OutputKind::Assembly) ? backend::OutputKind::Assembly : backend::OutputKind::Ptx;
    if (!diags.hasErrors() && be.canEmit(kind))
      if (auto outs = be.emit(funcs, target, eo, {kind}, diags); outs && !outs->empty()) code = outs->front().bytes;
    for (size_t i = 0; i < m->exports.size(); ++i) {
      const ir::Export &e = m->exports[i];
      const ExportSchedule &sched = schedules[i];
      ExportReport r;
      r.symbol = e.symbol;
      r.opName = e.op->name;
      const ir::KernelPtr &k = sched.kernel;
      r.kernelName = k ? k->name : "";
      r.kernelSteps = sched.kernelPasses;
      r.kernelKind = kindOf(e, r.kernelSteps);
      // A written kernel that was refused is still drawn as written: its
      // task grids show what the diagnostics are about.
      const ir::Kernel *shown = k ? k.get() : e.kernel.get();
      if (!k && e.kernel) r.kernelKind = "written, refused (see the diagnostics)";
      r.sourceFile = (shown ? shown->loc : e.op->loc).file;
      if (k) r.kernelSource = kernelAsSource(*k);
      if (shown) r.pictures = mappingPictures(*shown, report.sizes);
      r.statements = statementFates(e, sched, sm);
      r.work = opWork(*e.op, report.sizes);
      for (const ir::LoweredFunc &f : funcs)
        if (f.name == e.symbol) {
          r.loopText = ir::printLoweredFuncLines(f, &r.loopLocs);
          if (f.target == ir::TargetFamily::Sunway) {
            r.ldm = ldmAccounting(f, report.sizes);
            r.ldm->model = modelSpawn(*r.ldm, r.work.ops, construct->hw);
            if (const construct::MemLevel *l = construct->hw.levelFor(ir::Scope::Ldm)) r.ldmCapacity = l->capacity;
          }
          if (x.measure) measureExport(r, f, cpu, report.sizes);
        }
      if (!code.empty()) {
        r.codeKind = kind == backend::OutputKind::Assembly ? "x86-64 assembly" : "PTX";
        r.hotLoop = findHotLoop(code, e.symbol);
      }
      if (counters && target.desc.family == ir::TargetFamily::Cuda) r.counters = countersOf(*counters, e.symbol);
      if (!e.op->outputs.empty()) r.dtype = e.op->outputs.front()->dtype;
      r.roofs = machineRoofs(construct->hw, r.dtype);
      report.exports.push_back(std::move(r));
    }
  }
  report.constructTrace = trace.str();
  report.diagnostics = diags.all();
  std::string html = renderReport(report, sm, diags);
  std::string error;
  if (!writeOutputFile(output, html, &error)) {
    std::cerr << "tkc: error: " << error << "\n";
    return 1;
  }
  return diags.hasErrors() ? 1 : 0;
}

} // namespace tk::driver
