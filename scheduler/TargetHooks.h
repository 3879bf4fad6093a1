// TargetHooks: what one target adds to the scheduling pipeline. Pipeline.cpp
// runs the target-neutral passes and calls these hooks at fixed, named
// points, so the whole flow reads in that one file while the target's own
// passes live in scheduler/<target>/. A target overrides only the points it
// uses; the defaults change nothing. Passes called from a hook do not test
// the target again: the hook is the one place that decides.
#pragma once
#include "scheduler/Pipeline.h"

#include <optional>

namespace tk {

// What a hook may use: the options, the diagnostics, and the pipeline's
// per-pass bookkeeping (dump after the pass, verify the result).
class PassContext {
public:
  virtual ~PassContext() = default;
  virtual const PipelineOptions &options() const = 0;
  virtual DiagEngine &diags() = 0;
  // Record that `pass` produced `k` / `f` (dumps it, runs the verifiers).
  virtual void kernelStep(const char *pass, const ir::Kernel &k) = 0;
  virtual void funcStep(const char *pass, const ir::LoweredFunc &f) = 0;
  // The pipeline's default path for `op`: DefaultSchedule, statement fusion
  // (its diagnostics reported) and the target's fuseDefault.
  virtual ir::KernelPtr defaultKernel(const ir::OpPtr &op) = 0;
};

class TargetHooks {
public:
  virtual ~TargetHooks() = default;

  // constructKernel: a kernel the target builds itself for an op the user
  // gave none (cpu: packed contractions and convolutions); null = use the
  // default schedule.
  virtual ir::KernelPtr constructKernel(const ir::OpPtr &, PassContext &) const { return nullptr; }
  // fuseDefault: rewrites of a default schedule after statement fusion
  // (cpu: rows of softmax-like ops in one loop).
  virtual ir::KernelPtr fuseDefault(const ir::KernelPtr &k, PassContext &) const { return k; }
  // checkKernel: the target's rules for a checked kernel (cpu: where a
  // `sync` may stand; cuda: the `sync`s shared tensors need). False after
  // reporting errors.
  virtual bool checkKernel(const ir::Kernel &, PassContext &) const { return true; }
  // beforeVersioning / afterPartitioning: loop-IR rewrites around the
  // target-neutral VersionFullTiles and PartitionLoops (cpu: scalar
  // specialization before, strided-row deinterleaving after).
  virtual ir::LoweredFunc beforeVersioning(ir::LoweredFunc f, PassContext &) const { return f; }
  virtual ir::LoweredFunc afterPartitioning(ir::LoweredFunc f, PassContext &) const { return f; }
  // versionsLoops: whether the target-neutral VersionFullTiles and
  // PartitionLoops run. Both are legal for every target; cuda says no until
  // its kernels can be executed in CI (the PTX executor): a rewrite of
  // device loops that no test runs is not shipped.
  virtual bool versionsLoops() const { return true; }
  // instrumentMappings: the run-time mapping sanitizer of --check-mappings,
  // where the target has one (cpu).
  virtual ir::LoweredFunc instrumentMappings(ir::LoweredFunc f, PassContext &) const { return f; }
  // finish: the last step before a backend (cuda: the host/device split).
  // nullopt after reporting errors.
  virtual std::optional<ir::LoweredFunc> finish(ir::LoweredFunc f, PassContext &) const { return f; }
};

// The hooks of `family` (scheduler/cpu/CpuHooks.cpp, scheduler/cuda/CudaHooks.cpp,
// scheduler/sunway/SunwayHooks.cpp).
const TargetHooks &targetHooks(ir::TargetFamily family);

} // namespace tk
