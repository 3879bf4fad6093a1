#include "frontend/driver/explain/ExplainCommand.h"

#include "backends/x86/X86Backend.h"
#include "frontend/driver/CompileOptions.h"
#include "frontend/driver/Hardware.h"
#include "frontend/driver/InputFile.h"
#include "frontend/driver/JitMeasure.h"
#include "frontend/driver/OutputFile.h"
#include "frontend/driver/RankingOptions.h"
#include "frontend/driver/explain/ExplainReport.h"
#include "ir/IRRewrite.h"
#include "ir/PrintLoopIRLines.h"
#include "ir/SpellReductions.h"
#include "scheduler/Pipeline.h"
#include "scheduler/construct/FillHoles.h"
#include "scheduler/construct/LoopNest.h"

#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <filesystem>
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

// The kernel-level steps of the pass dump (`// ---- after PASS: NAME ----`)
// for kernel `name`, in order.
std::vector<std::string> kernelSteps(const std::string &dump, const std::string &name) {
  std::vector<std::string> steps;
  std::istringstream in(dump);
  const std::string head = "// ---- after ";
  for (std::string l; std::getline(in, l);) {
    if (l.rfind(head, 0) != 0) continue;
    size_t colon = l.find(": ", head.size());
    if (colon == std::string::npos || l.compare(colon + 2, name.size() + 5, name + " ----") != 0) continue;
    std::string pass = l.substr(head.size(), colon - head.size());
    bool kernelPass = pass == "DefaultSchedule" || pass == "FuseStatements" || pass == "FuseRows" ||
                      pass == "CheckHoles" || pass.rfind("Construct", 0) == 0;
    if (kernelPass) steps.push_back(pass);
  }
  return steps;
}

std::string kindOf(const ir::Export &e, const std::vector<std::string> &steps) {
  if (e.kernel) {
    for (const ir::Hole &h : e.kernel->holes)
      if (!h.value) return "written, holes filled by construction";
    return "written";
  }
  for (const std::string &s : steps)
    if (s.rfind("Construct", 0) == 0) return "constructed (" + s + ")";
  return "default schedule";
}

std::string trimmed(std::string_view s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? "" : std::string(s.substr(b, e - b + 1));
}

// What became of each statement of the export's op: a fusion refusal (a
// warning at the statement) says why it stayed apart; otherwise an
// intermediate that the kernel no longer stores was fused into its
// readers, and one it still stores is a tensor of its own.
std::vector<StatementFate> statementFates(const ir::Export &e, const ir::Kernel *k, const std::vector<std::string> &steps,
                                          const SourceManager &sm, const DiagEngine &diags) {
  bool rows = std::find(steps.begin(), steps.end(), "FuseRows") != steps.end();
  std::set<std::string> stored;
  if (k) ir::visitMStmt(k->body, [&](const ir::MStmt &s) {
    if (s.kind == ir::MStmt::Kind::Store) stored.insert(s.tensor->name);
  });
  std::vector<StatementFate> out;
  for (const ir::Assign &a : e.op->body) {
    StatementFate f;
    f.loc = a.loc;
    f.text = a.loc.valid() ? trimmed(sm.lineText(a.loc.file, a.loc.line)) : a.target->name + "[..] = ..";
    for (const Diagnostic &d : diags.all())
      if (d.severity == Severity::Warning && d.loc.file == a.loc.file && d.loc.line == a.loc.line &&
          d.message.find("fuse") != std::string::npos) {
        f.refused = true;
        f.outcome = d.message;
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

ir::KernelPtr kernelOf(const ir::Export &e, const std::vector<ir::KernelPtr> &kernels) {
  for (const ir::KernelPtr &k : kernels)
    if (e.kernel ? k->name == e.kernel->name && !k->synthesized : k->synthesized && k->name == e.op->name) return k;
  return nullptr;
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

} // namespace

int explainFile(const DriverOptions &o, bool measure, const backend::Backend &be, const backend::Target &target,
                const std::string &stdlib, SourceManager &sm, DiagEngine &diags, std::string *usage) {
  std::optional<Input> in = openInput(o.input, usage);
  if (!in) return -1;
  std::string output = o.output.empty() ? fs::path(o.input).stem().string() + ".html" : o.output;
  if (in->isStream() && o.output.empty()) {
    *usage = "the input is a stream (" + in->name + "): name the report with -o FILE";
    return -1;
  }
  ReportInput report;
  report.inputName = in->name;
  report.target = o.target;
  std::optional<ir::Module> m =
      buildModule(in->name, frontendOptions(o, stdlib, target.desc.family), sm, diags, nullptr, in->source());
  // An input that could not be read (already said, without a location) leaves nothing to report on.
  bool located = std::any_of(diags.all().begin(), diags.all().end(), [](const Diagnostic &d) { return d.loc.valid(); });
  if (!m && !located) return 1;
  std::ostringstream trace, dump;
  auto construct = constructOptions(o, be.defaultHardware(target), stdlib, sm, diags, &trace);
  const CpuTarget *cpu = target.desc.family == ir::TargetFamily::Cpu ? &std::any_cast<const CpuTarget &>(target.spec)
                                                                     : nullptr;
  if (construct && !setRanking(o, cpu, stdlib, *construct, sm, diags, nullptr, usage) && !usage->empty()) return -1;
  if (m && construct && !diags.hasErrors()) {
    report.hardware = construct->hw.name;
    report.sizes = reportSizes(*m, construct->shapes);
    PipelineOptions po = pipelineOptions(o, target.desc);
    // The kernels first, quietly and untraced: lowering schedules them
    // again (deterministically) and reports once.
    construct::ConstructOptions quietConstruct = *construct;
    quietConstruct.gensor.trace = nullptr;
    po.construct = &quietConstruct;
    std::ostringstream discard;
    DiagEngine quiet(sm);
    quiet.setStream(&discard);
    std::vector<ir::KernelPtr> kernels = scheduleModule(*m, po, quiet);
    po.construct = &*construct;
    po.dumpAfterEachPass = &dump;
    std::vector<ir::LoweredFunc> funcs = lowerModule(*m, po, diags);
    std::string code;
    backend::EmitOptions eo{o.optLevel, fs::path(in->name).filename().string()};
    backend::OutputKind kind =
        be.canEmit(backend::OutputKind::Assembly) ? backend::OutputKind::Assembly : backend::OutputKind::Ptx;
    if (!diags.hasErrors() && be.canEmit(kind))
      if (auto outs = be.emit(funcs, target, eo, {kind}, diags); outs && !outs->empty()) code = outs->front().bytes;
    for (const ir::Export &e : m->exports) {
      ExportReport r;
      r.symbol = e.symbol;
      r.opName = e.op->name;
      ir::KernelPtr k = kernelOf(e, kernels);
      r.kernelName = k ? k->name : "";
      r.kernelSteps = kernelSteps(dump.str(), r.kernelName);
      r.kernelKind = kindOf(e, r.kernelSteps);
      // A written kernel that was refused is still drawn as written: its
      // task grids show what the diagnostics are about.
      const ir::Kernel *shown = k ? k.get() : e.kernel.get();
      if (!k && e.kernel) r.kernelKind = "written, refused (see the diagnostics)";
      r.sourceFile = (shown ? shown->loc : e.op->loc).file;
      if (k) r.kernelSource = ir::printKernelSource(*ir::spellReductions(*k), k->synthesized ? k->name + "_schedule" : k->name);
      if (shown) r.pictures = mappingPictures(*shown, report.sizes);
      r.statements = statementFates(e, k.get(), r.kernelSteps, sm, diags);
      for (const ir::LoweredFunc &f : funcs)
        if (f.name == e.symbol) {
          r.loopText = ir::printLoweredFuncLines(f, &r.loopLocs);
          if (f.target == ir::TargetFamily::Sunway) {
            r.ldm = ldmAccounting(f, report.sizes);
            if (const construct::MemLevel *l = construct->hw.levelFor(ir::Scope::Ldm)) r.ldmCapacity = l->capacity;
          }
          if (measure) measureExport(r, f, cpu, report.sizes);
        }
      if (!code.empty()) {
        r.codeKind = kind == backend::OutputKind::Assembly ? "x86-64 assembly" : "PTX";
        r.hotLoop = findHotLoop(code, e.symbol);
      }
      r.work = opWork(*e.op, report.sizes);
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
