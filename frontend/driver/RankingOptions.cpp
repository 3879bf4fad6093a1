#include "frontend/driver/RankingOptions.h"

#include "frontend/ResolveImports.h"
#include "frontend/driver/HostHardware.h"
#include "frontend/driver/MeasureCandidates.h"
#include "scheduler/costmodel/CostModel.h"
#include "scheduler/looptune/TuneDecisions.h"
#include "scheduler/looptune/TuningRecords.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <memory>

namespace tk::driver {

std::string hardwareIdOf(const construct::HardwareDesc &hw) {
  return hw.name == "host" ? hostHardwareId() : costmodel::hardwareId(hw.name, "", hw.units);
}

namespace {

// Appends one record line to `path` (opened per record: a build writes few).
void appendRecord(const std::string &path, const costmodel::Record &r) {
  std::ofstream out(path, std::ios::app);
  out << costmodel::printRecord(r) << "\n";
  if (!out) throw InternalError("cannot append to records file '" + path + "'");
}

bool canAppend(const std::string &path, std::string *usage) {
  if (std::ofstream(path, std::ios::app)) return true;
  *usage = "cannot open records file '" + path + "' for appending";
  return false;
}

// --rank=model: the model's scores on the head of `head`.
bool setModel(const DriverOptions &o, const std::string &stdlib, const std::string &head, construct::ConstructOptions &c,
              SourceManager &sm, DiagEngine &diags, std::vector<std::string> *deps) {
  std::string path = o.costModel.empty() ? stdlib + "/costmodel/cpu.tkcm" : o.costModel;
  std::string text;
  if (!readSourceFile(path, text)) {
    diags.error(SourceLoc{}, "cannot read cost model '" + path + "' (no such regular file, or larger than 64 MiB)");
    return false;
  }
  if (deps) deps->push_back(path);
  int file = sm.addFile(path, std::move(text));
  auto model = costmodel::CostModel::load(file, sm, diags);
  if (!model) return false;
  int h = model->head(head);
  if (h < 0) {
    diags.error(SourceLoc{file, 1, 1},
                fmt::format("cost model has no head for hardware '{}' (it was trained for: {}); train it on records of "
                            "this machine (docs/costmodel.md) or name one with --cost-model-head=ID",
                            head, fmt::join(model->heads(), ", ")));
    return false;
  }
  auto shared = std::make_shared<const costmodel::CostModel>(std::move(*model));
  c.rankByModel = [shared, h](const std::vector<costmodel::DecisionSequence> &seqs) { return shared->score(seqs, h); };
  return true;
}

} // namespace

bool setRanking(const DriverOptions &o, const CpuTarget *cpu, const std::string &stdlib, construct::ConstructOptions &c,
                SourceManager &sm, DiagEngine &diags, std::vector<std::string> *deps, std::string *usage) {
  bool measures = o.rank == "measure" || o.measureTop > 0;
  if (!cpu && (measures || o.rank == "model")) {
    *usage = o.rank == "model" ? "--rank=model ranks CPU kernels (the cost model is trained on CPU records); use "
                                 "--rank=roofline for this target"
                               : "--rank=measure and --measure-top time candidates on this CPU; ranking GPU kernels by "
                                 "measurement needs a GPU run, which tkc does not do: use --rank=roofline";
    return false;
  }
  if (!o.recordsOut.empty() && !measures) {
    *usage = "--records-out records timed candidates: it needs --rank=measure or --measure-top=K";
    return false;
  }
  std::string hwId = hardwareIdOf(c.hw);
  if (o.rank == "model" && !setModel(o, stdlib, o.costModelHead.empty() ? hwId : o.costModelHead, c, sm, diags, deps))
    return false;
  if (!measures) return true;
  c.measure = measureCandidates(*cpu, c.shapes);
  if (o.measureTop > 0) c.measureTopK = static_cast<size_t>(o.measureTop);
  if (!o.recordsOut.empty()) {
    std::string path = o.recordsOut;
    if (!canAppend(path, usage)) return false;
    std::map<std::string, int64_t> shapes = c.shapes;
    c.recordMeasured = [path, hwId, shapes](const ir::Op &op, const costmodel::DecisionSequence &seq,
                                            const std::string &origin, const costmodel::Latency &lat) {
      if (!std::isfinite(lat.median)) return; // the call failed: nothing was timed
      costmodel::Record r;
      r.hardware = hwId;
      r.op = op.name;
      r.ir = looptune::opFingerprint(op);
      r.shape = construct::assumedValues(op, shapes);
      r.candidate = origin;
      r.decisions = seq;
      r.latency = lat;
      r.tkc = TK_VERSION;
      appendRecord(path, r);
    };
  }
  return true;
}

std::function<void(const looptune::TuneNest &, const costmodel::Latency &)>
tuneRecorder(const std::string &path, const std::string &search, std::string *usage) {
  if (!canAppend(path, usage)) return {};
  std::string hwId = hostHardwareId();
  int units = detectHostHardware().units;
  return [path, search, hwId, units](const looptune::TuneNest &n, const costmodel::Latency &lat) {
    if (!std::isfinite(lat.median)) return;
    costmodel::Record r;
    r.hardware = hwId;
    r.op = n.op->name;
    r.ir = looptune::opFingerprint(*n.op);
    r.candidate = "looptune-" + search;
    r.decisions = looptune::tuneDecisions(n, units);
    r.latency = lat;
    r.tkc = TK_VERSION;
    appendRecord(path, r);
  };
}

} // namespace tk::driver
