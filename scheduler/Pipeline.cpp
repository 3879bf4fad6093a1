// The scheduling pipeline, pass by pass: the target-neutral passes in order,
// and the points (marked [hook ...]) where each target's own passes run
// (scheduler/TargetHooks.h; scheduler/cpu/, scheduler/cuda/). Verifiers run
// after every pass so a pass that breaks an invariant is caught where it
// happens, not in the backend.
#include "scheduler/Pipeline.h"

#include "ir/IRRewrite.h"
#include "ir/VerifyLoopIR.h"
#include "ir/VerifyMappingIR.h"
#include "ir/VerifyReadsWritten.h"
#include "ir/VerifyTensorIR.h"
#include "scheduler/CheckHoles.h"
#include "scheduler/CheckTaskMappings.h"
#include "scheduler/DefaultSchedule.h"
#include "scheduler/Fusion.h"
#include "scheduler/InsertRuntimeChecks.h"
#include "scheduler/LowerReductions.h"
#include "scheduler/LowerTaskMappings.h"
#include "scheduler/PartitionLoops.h"
#include "scheduler/PredicateAccesses.h"
#include "scheduler/ReassignedReads.h"
#include "scheduler/TargetHooks.h"
#include "scheduler/VersionFullTiles.h"
#include "scheduler/construct/FillHoles.h"
#include "scheduler/cpu/CpuHooks.h"
#include "scheduler/cuda/CudaHooks.h"
#include "scheduler/sunway/SunwayHooks.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

namespace tk {
using namespace ir;

namespace {

class Run final : public PassContext {
public:
  Run(const PipelineOptions &opts, DiagEngine &diags) : opts_(opts), diags_(diags) {}

  // The checked kernel of an export (its own, or the op's default
  // schedule); null when checking reported errors. Each kernel is scheduled
  // once even when several exports use it.
  KernelPtr schedule(const Export &e) { return scheduled(e).kernel; }

  // The record of scheduling e's kernel (scheduling it first if need be).
  const ExportSchedule &scheduled(const Export &e) {
    const void *key = e.kernel ? static_cast<const void *>(e.kernel.get()) : e.op.get();
    auto it = done_.find(key);
    if (it != done_.end()) return it->second;
    ExportSchedule &rec = done_[key];
    current_ = &rec;
    rec.kernel = scheduleAnew(e);
    current_ = nullptr;
    return rec;
  }

  std::optional<LoweredFunc> lower(const Export &e) {
    KernelPtr k = schedule(e);
    if (!k) return std::nullopt;
    const TargetHooks &hooks = targetHooks(k->target);
    unchecked_ = userTensors(*k);
    LoweredFunc f = lowerTaskMappings(*k, e.symbol, opts_.target);
    step("LowerTaskMappings", f, false);
    f = lowerReductions(f);
    funcStep("LowerReductions", f);
    f = predicateAccesses(f);
    funcStep("PredicateAccesses", f);
    f = hooks.beforeVersioning(std::move(f), *this); // [hook beforeVersioning]
    if (hooks.versionsLoops()) { // [hook versionsLoops]
      f = versionFullTiles(f);
      funcStep("VersionFullTiles", f);
      f = partitionLoops(f);
      funcStep("PartitionLoops", f);
    }
    f = hooks.afterPartitioning(std::move(f), *this); // [hook afterPartitioning]
    if (opts_.checkMappings) f = hooks.instrumentMappings(std::move(f), *this); // [hook instrumentMappings]
    f = insertRuntimeChecks(f, *k);
    funcStep("InsertRuntimeChecks", f);
    return hooks.finish(std::move(f), *this); // [hook finish]
  }

  KernelPtr defaultKernel(const OpPtr &op) override {
    KernelPtr k = defaultSchedule(separateReassignedReads(op), opts_.target);
    kernelStep("DefaultSchedule", *k);
    std::vector<FusionRefusal> refused;
    KernelPtr fused = fuseStatements(k, diags_, &refused);
    if (fused != k) kernelStep("FuseStatements", *fused);
    KernelPtr out = targetHooks(k->target).fuseDefault(fused, *this); // [hook fuseDefault]
    for (const FusionRefusal &r : refused)
      if (!fusedTogether(*out, r.stmt, r.anchor)) {
        diags_.warning(r.loc, r.message);
        if (current_) current_->refusedFusions.push_back(RefusedFusion{r.loc, r.message});
      }
    return out;
  }

  const PipelineOptions &options() const override { return opts_; }
  DiagEngine &diags() override { return diags_; }
  void kernelStep(const char *pass, const Kernel &k) override {
    if (current_) current_->kernelPasses.push_back(pass);
    dump(pass, k.name, printKernel(k));
  }
  void funcStep(const char *pass, const LoweredFunc &f) override { step(pass, f, true); }

private:
  // schedule()'s work for a kernel not scheduled yet.
  KernelPtr scheduleAnew(const Export &e) {
    if (verifiedOps_.insert(e.op.get()).second) verifyTensorIR(*e.op);
    const TargetHooks &hooks = targetHooks(opts_.target.family);
    KernelPtr k = e.kernel;
    if (!k) k = hooks.constructKernel(e.op, *this); // [hook constructKernel]
    if (!k) k = defaultKernel(e.op);
    verifyMappingIR(*k, false);
    bool open = std::any_of(k->holes.begin(), k->holes.end(), [](const Hole &h) { return !h.value; });
    if (open && opts_.construct) {
      k = construct::fillHolesByConstruction(*k, *opts_.construct, diags_);
      if (!k) return nullptr;
    }
    KernelPtr filled = checkHoles(*k, diags_);
    if (!filled) return nullptr;
    kernelStep("CheckHoles", *filled);
    verifyMappingIR(*filled, true);
    if (!checkTaskMappings(*filled, diags_)) return nullptr;
    if (!hooks.checkKernel(*filled, *this)) return nullptr; // [hook checkKernel]
    return filled;
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
  std::map<const void *, ExportSchedule> done_; // by user kernel, or by op for default schedules
  ExportSchedule *current_ = nullptr;            // the record of the kernel being scheduled
  std::set<const Op *> verifiedOps_;
  std::set<const TensorDecl *> unchecked_; // of the function being lowered
};

} // namespace

const TargetHooks &targetHooks(TargetFamily family) {
  switch (family) {
  case TargetFamily::Cpu: return cpuHooks();
  case TargetFamily::Cuda: return cudaHooks();
  case TargetFamily::Sunway: return sunwayHooks();
  }
  throw InternalError("no scheduling hooks for this target family");
}

std::vector<KernelPtr> scheduleModule(const Module &m, const PipelineOptions &opts, DiagEngine &diags) {
  Run run(opts, diags);
  std::vector<KernelPtr> out;
  std::set<const Kernel *> seen;
  for (const Export &e : m.exports)
    if (KernelPtr k = run.schedule(e); k && seen.insert(k.get()).second) out.push_back(k);
  return out;
}

std::vector<LoweredFunc> lowerModule(const Module &m, const PipelineOptions &opts, DiagEngine &diags,
                                     std::vector<ExportSchedule> *schedules) {
  Run run(opts, diags);
  std::vector<LoweredFunc> out;
  for (const Export &e : m.exports) {
    if (auto f = run.lower(e)) out.push_back(std::move(*f));
    if (schedules) {
      schedules->push_back(run.scheduled(e));
      schedules->back().symbol = e.symbol;
    }
  }
  return out;
}

} // namespace tk
