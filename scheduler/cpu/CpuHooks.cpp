// The cpu target's pipeline hooks (scheduler/TargetHooks.h): packed
// contraction (f32/f64, and int8 in byte quads) and convolution kernels,
// row fusion of default schedules, sync placement, scalar specialization,
// strided-row deinterleaving, single-lane window versions and the
// run-time mapping sanitizer.
#include "scheduler/cpu/CpuHooks.h"

#include "ir/Module.h"
#include "scheduler/cpu/CheckBarriers.h"
#include "scheduler/cpu/ConstructByteContraction.h"
#include "scheduler/cpu/ConstructConvolution.h"
#include "scheduler/cpu/ConstructSchedule.h"
#include "scheduler/cpu/ConstructStages.h"
#include "scheduler/ReassignedReads.h"
#include "scheduler/cpu/DeinterleaveStridedRows.h"
#include "scheduler/cpu/FoldContractionConsumer.h"
#include "scheduler/cpu/FuseRows.h"
#include "scheduler/cpu/InstrumentMappingChecks.h"
#include "scheduler/cpu/MergeReductionVars.h"
#include "scheduler/cpu/SpecializeScalars.h"
#include "scheduler/cpu/VersionSingleLaneWindows.h"

namespace tk {
using namespace ir;

namespace {

// The packed kernel of a one-statement op (a contraction with its
// epilogue, or a convolution), or of a contraction and its element-wise
// consumer folded into one; null when `op` is none of these.
KernelPtr constructOne(const OpPtr &op, PassContext &ctx) {
  const PipelineOptions &opts = ctx.options();
  if (byteContractionApplies(*op, opts.target)) {
    // The quads' bytes per k step equal an f32 panel's: the same blocking.
    KernelPtr k = constructByteContraction(op, chooseContractionTiles(opts.construct->hw, opts.target, 4));
    ctx.kernelStep("ConstructByteContraction", *k);
    return k;
  }
  // The op as ConstructSchedule takes it, and the rewrites that made it so
  // (for --dump-after-each-pass).
  OpPtr contraction = op;
  std::string steps;
  if (!constructScheduleApplies(*contraction))
    if (OpPtr folded = foldContractionConsumer(contraction)) {
      // t = sum ..; O = g(t): the packed kernel with g as its epilogue.
      contraction = folded;
      steps += "FoldContractionConsumer + ";
    }
  if (!constructScheduleApplies(*contraction))
    if (OpPtr merged = mergeReductionVars(contraction)) {
      contraction = merged;
      steps += "MergeReductionVars + ";
    }
  if (constructScheduleApplies(*contraction)) {
    KernelPtr k = constructContraction(contraction, *opts.construct, opts.target);
    ctx.kernelStep((steps + "ConstructSchedule").c_str(), *k);
    return k;
  }
  if (constructConvolutionApplies(*op)) {
    int bytes = scalarTypeBytes(op->body[0].target->dtype);
    ConvolutionTiles tiles = chooseConvolutionTiles(opts.target, bytes);
    tiles.cores = std::max<int64_t>(1, opts.construct->hw.units);
    KernelPtr k = constructConvolution(op, tiles);
    ctx.kernelStep("ConstructConvolution", *k);
    return k;
  }
  return nullptr;
}

class CpuHooks final : public TargetHooks {
public:
  KernelPtr constructKernel(const OpPtr &op, PassContext &ctx) const override {
    const PipelineOptions &opts = ctx.options();
    if (!opts.construct || !opts.constructContractions) return nullptr;
    auto one = [&](const OpPtr &o) { return constructOne(o, ctx); };
    if (KernelPtr k = one(op)) return k;
    // Several statements: each contraction in a stage of its own.
    KernelPtr k = constructStages(separateReassignedReads(op), one, ctx);
    if (k) ctx.kernelStep("ConstructStages", *k);
    return k;
  }

  KernelPtr fuseDefault(const KernelPtr &k, PassContext &ctx) const override {
    KernelPtr rows = fuseRows(k);
    if (rows != k) ctx.kernelStep("FuseRows", *rows);
    return rows;
  }

  bool checkKernel(const Kernel &k, PassContext &ctx) const override { return checkBarriers(k, ctx.diags()); }

  LoweredFunc beforeVersioning(LoweredFunc f, PassContext &ctx) const override {
    f = specializeScalars(f);
    ctx.funcStep("SpecializeScalars", f);
    return f;
  }

  LoweredFunc afterPartitioning(LoweredFunc f, PassContext &ctx) const override {
    f = deinterleaveStridedRows(f);
    ctx.funcStep("DeinterleaveStridedRows", f);
    f = versionSingleLaneWindows(f);
    ctx.funcStep("VersionSingleLaneWindows", f);
    return f;
  }

  LoweredFunc instrumentMappings(LoweredFunc f, PassContext &ctx) const override {
    f = instrumentMappingChecks(f);
    ctx.funcStep("InstrumentMappingChecks", f);
    return f;
  }
};

} // namespace

const TargetHooks &cpuHooks() {
  static const CpuHooks hooks;
  return hooks;
}

} // namespace tk
