// The cuda target's pipeline hooks (scheduler/TargetHooks.h): row kernels
// for row-wise ops without a kernel, the shared-memory barrier check of
// every kernel, unguarded interiors of device
// loops with run-time trip counts, and the host/device split of every
// function, under the launch limits of the hardware description in effect.
#include "scheduler/cuda/CudaHooks.h"

#include "scheduler/construct/FillHoles.h"
#include "scheduler/cuda/CheckSharedSync.h"
#include "scheduler/cuda/ConstructRowKernel.h"
#include "scheduler/cuda/FormKernelLaunches.h"
#include "scheduler/cuda/SplitDeviceLoops.h"

namespace tk {
using namespace ir;

namespace {

// From the cuda hardware description (--hw) where it has them: the
// capacity of the level holding `shared` tensors and the register limits; else the 48 KiB
// every architecture allows without opting in, and 255 / 65536 registers.
LaunchLimits launchLimits(const PipelineOptions &opts) {
  LaunchLimits l;
  if (!opts.construct || opts.construct->hw.family != TargetFamily::Cuda) return l;
  const construct::HardwareDesc &hw = opts.construct->hw;
  if (const construct::MemLevel *m = hw.levelFor(Scope::Shared); m && m->capacity > 0) l.sharedBytes = m->capacity;
  if (hw.maxRegistersPerThread > 0) l.registersPerThread = hw.maxRegistersPerThread;
  if (hw.registersPerUnit > 0) l.registersPerBlock = hw.registersPerUnit;
  return l;
}

// Warps per row of a constructed row kernel: on an H200, 4 gave 0.82-0.87
// of the device copy at 1,024 columns and 0.78-0.81 at 4,096, where 8 gave
// 0.53 and 0.84-0.89 (stdlib/gpu/row_blocks.tk, docs/performance.md).
constexpr int kRowWarps = 4;

class CudaHooks final : public TargetHooks {
public:
  KernelPtr constructKernel(const OpPtr &op, PassContext &ctx) const override {
    if (!ctx.options().constructContractions || !rowKernelApplies(*op, nullptr)) return nullptr;
    KernelPtr k = constructRowKernel(op, kRowWarps);
    ctx.kernelStep("ConstructRowKernel", *k);
    return k;
  }

  bool versionsLoops() const override { return false; }

  bool checkKernel(const Kernel &k, PassContext &ctx) const override { return checkSharedSync(k, ctx.diags()); }

  LoweredFunc afterPartitioning(LoweredFunc f, PassContext &ctx) const override {
    f = splitDeviceLoops(f);
    ctx.funcStep("SplitDeviceLoops", f);
    return f;
  }

  std::optional<LoweredFunc> finish(LoweredFunc f, PassContext &ctx) const override {
    std::optional<LoweredFunc> launched = formKernelLaunches(f, launchLimits(ctx.options()), ctx.diags());
    if (launched) ctx.funcStep("FormKernelLaunches", *launched);
    return launched;
  }
};

} // namespace

const TargetHooks &cudaHooks() {
  static const CudaHooks hooks;
  return hooks;
}

} // namespace tk
