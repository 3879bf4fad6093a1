// The scheduling pipeline, pass by pass. Verifiers run between passes so a
// pass that breaks an invariant is caught where it happens, not in the
// backend.
#include "scheduler/Pipeline.h"

#include "ir/GpuLaunch.h"
#include "ir/IRRewrite.h"
#include "ir/VerifyLoopIR.h"
#include "ir/VerifyMappingIR.h"
#include "ir/VerifyReadsWritten.h"
#include "ir/VerifyTensorIR.h"
#include "scheduler/CheckBarriers.h"
#include "scheduler/CheckHoles.h"
#include "scheduler/CheckTaskMappings.h"
#include "scheduler/ConstructConvolution.h"
#include "scheduler/ConstructSchedule.h"
#include "scheduler/DefaultSchedule.h"
#include "scheduler/DeinterleaveStridedRows.h"
#include "scheduler/FormKernelLaunches.h"
#include "scheduler/FuseRows.h"
#include "scheduler/Fusion.h"
#include "scheduler/InsertRuntimeChecks.h"
#include "scheduler/InstrumentMappingChecks.h"
#include "scheduler/LowerReductions.h"
#include "scheduler/LowerTaskMappings.h"
#include "scheduler/PartitionLoops.h"
#include "scheduler/PredicateAccesses.h"
#include "scheduler/ReassignedReads.h"
#include "scheduler/SpecializeScalars.h"
#include "scheduler/VersionFullTiles.h"
#include "scheduler/construct/FillHoles.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

namespace tk {
using namespace ir;

namespace {

class Run {
public:
  Run(const PipelineOptions &opts, DiagEngine &diags) : opts_(opts), diags_(diags) {}

  // The checked kernel of an export (its own, or the op's default
  // schedule); null when checking reported errors. Each kernel is scheduled
  // once even when several exports use it.
  KernelPtr schedule(const Export &e) {
    const void *key = e.kernel ? static_cast<const void *>(e.kernel.get()) : e.op.get();
    auto it = done_.find(key);
    if (it != done_.end()) return it->second;
    KernelPtr &slot = done_[key];
    if (verifiedOps_.insert(e.op.get()).second) verifyTensorIR(*e.op);
    KernelPtr k = e.kernel;
    if (!k && useConstructSchedule(*e.op)) {
      k = constructContraction(e.op, *opts_.construct, opts_.target.vectorBits);
      dump("ConstructSchedule", k->name, printKernel(*k));
    } else if (!k && useConstructConvolution(*e.op)) {
      int bytes = scalarTypeBytes(e.op->body[0].target->dtype);
      k = constructConvolution(e.op, chooseConvolutionTiles(opts_.target.vectorBits, bytes));
      dump("ConstructConvolution", k->name, printKernel(*k));
    }
    if (!k) {
      k = defaultSchedule(separateReassignedReads(e.op), opts_.target);
      dump("DefaultSchedule", k->name, printKernel(*k));
      KernelPtr fused = fuseStatements(k, diags_);
      if (fused != k) dump("FuseStatements", k->name, printKernel(*fused));
      k = fused;
      KernelPtr rows = fuseRows(k);
      if (rows != k) dump("FuseRows", k->name, printKernel(*rows));
      k = rows;
    }
    verifyMappingIR(*k, false);
    bool open = std::any_of(k->holes.begin(), k->holes.end(), [](const Hole &h) { return !h.value; });
    if (open && opts_.construct) {
      k = construct::fillHolesByConstruction(*k, *opts_.construct, diags_);
      if (!k) return slot = nullptr;
    }
    KernelPtr filled = checkHoles(*k, diags_);
    if (!filled) return slot = nullptr;
    dump("CheckHoles", k->name, printKernel(*filled));
    verifyMappingIR(*filled, true);
    if (!checkTaskMappings(*filled, diags_) || !checkBarriers(*filled, diags_)) return slot = nullptr;
    return slot = filled;
  }

  std::optional<LoweredFunc> lower(const Export &e) {
    KernelPtr k = schedule(e);
    if (!k) return std::nullopt;
    unchecked_ = userTensors(*k);
    LoweredFunc f = lowerTaskMappings(*k, e.symbol, opts_.target);
    step("LowerTaskMappings", f, false);
    f = lowerReductions(f);
    step("LowerReductions", f, true);
    f = predicateAccesses(f);
    step("PredicateAccesses", f, true);
    if (f.target == TargetFamily::Cpu) {
      f = specializeScalars(f);
      step("SpecializeScalars", f, true);
      f = versionFullTiles(f);
      step("VersionFullTiles", f, true);
      f = partitionLoops(f);
      step("PartitionLoops", f, true);
      f = deinterleaveStridedRows(f);
      step("DeinterleaveStridedRows", f, true);
    }
    if (opts_.checkMappings && f.target == TargetFamily::Cpu) {
      f = instrumentMappingChecks(f);
      step("InstrumentMappingChecks", f, true);
    }
    f = insertRuntimeChecks(f, *k);
    step("InsertRuntimeChecks", f, true);
    if (f.target == TargetFamily::Cuda) {
      std::optional<LoweredFunc> launched = formKernelLaunches(f, launchLimits(), diags_);
      if (!launched) return std::nullopt;
      f = std::move(*launched);
      step("FormKernelLaunches", f, true);
    }
    return f;
  }

private:
  // From the cuda hardware description (--hw) where it has them: the
  // `shared` level's capacity and the register limits; else the 48 KiB
  // every architecture allows without opting in, and 255 / 65536 registers.
  LaunchLimits launchLimits() const {
    LaunchLimits l;
    if (!opts_.construct || opts_.construct->hw.family != TargetFamily::Cuda) return l;
    const construct::HardwareDesc &hw = opts_.construct->hw;
    for (const construct::MemLevel &m : hw.levels)
      if (m.name == "shared" && m.capacity > 0) l.sharedBytes = m.capacity;
    if (hw.maxRegistersPerThread > 0) l.registersPerThread = hw.maxRegistersPerThread;
    if (hw.registersPerUnit > 0) l.registersPerBlock = hw.registersPerUnit;
    return l;
  }

  bool useConstructSchedule(const Op &op) const {
    return opts_.target.family == TargetFamily::Cpu && opts_.construct && opts_.constructContractions &&
           constructScheduleApplies(op);
  }
  bool useConstructConvolution(const Op &op) const {
    return opts_.target.family == TargetFamily::Cpu && opts_.construct && opts_.constructContractions &&
           constructConvolutionApplies(op);
  }

  void step(const char *pass, const LoweredFunc &f, bool reductionsLowered) {
    dump(pass, f.name, printLoweredFunc(f));
    verifyLoopIR(f, reductionsLowered);
    verifyReadsWritten(f, unchecked_);
  }

  // A user kernel's outputs and locals: its reads of them before any write
  // are its author's (sema does not track them), not a pass's bug, so the
  // read-after-write verifier leaves them alone. None for schedules the
  // compiler made.
  static std::set<const TensorDecl *> userTensors(const Kernel &k) {
    std::set<const TensorDecl *> out;
    if (k.synthesized) return out;
    for (const TensorPtr &t : k.op->outputs) out.insert(t.get());
    visitMStmt(k.body, [&](const MStmt &m) {
      if (m.kind == MStmt::Kind::Alloc) out.insert(m.tensor.get());
    });
    return out;
  }

  void dump(const char *pass, const std::string &name, const std::string &text) {
    if (opts_.dumpAfterEachPass) *opts_.dumpAfterEachPass << "// ---- after " << pass << ": " << name << " ----\n" << text;
  }

  const PipelineOptions &opts_;
  DiagEngine &diags_;
  std::map<const void *, KernelPtr> done_;
  std::set<const Op *> verifiedOps_;
  std::set<const TensorDecl *> unchecked_; // of the function being lowered
};

} // namespace

std::vector<KernelPtr> scheduleModule(const Module &m, const PipelineOptions &opts, DiagEngine &diags) {
  Run run(opts, diags);
  std::vector<KernelPtr> out;
  std::set<const Kernel *> seen;
  for (const Export &e : m.exports)
    if (KernelPtr k = run.schedule(e); k && seen.insert(k.get()).second) out.push_back(k);
  return out;
}

std::vector<LoweredFunc> lowerModule(const Module &m, const PipelineOptions &opts, DiagEngine &diags) {
  Run run(opts, diags);
  std::vector<LoweredFunc> out;
  for (const Export &e : m.exports)
    if (auto f = run.lower(e)) out.push_back(std::move(*f));
  return out;
}

} // namespace tk
