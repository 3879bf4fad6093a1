// The sunway target's pipeline hooks (scheduler/TargetHooks.h): ops without
// a kernel have their element-wise intermediates inlined into their readers
// (InlineElementwise), a reduction read by one element-wise epilogue is
// substituted into it (FuseTileEpilogues), and the statements get output
// tiles held in LDM (across the reduction for reductions), spread over all
// 64 CPEs whatever the extents (TileOutputs, sized by LdmTiles); a row
// operator's statements instead run one row at a time on a CPE when its
// rows fit the LDM (FuseRowsInLdm). Loops stay unversioned (the C compiler
// of the CPE sees plain guarded loops, and StageThroughLdm plans its LDM
// boxes on the loops as scheduled); the last step stages main-memory
// tensors through LDM.
#include "scheduler/sunway/SunwayHooks.h"

#include "ir/FloatOps.h"
#include "ir/Reduction.h"
#include "scheduler/DefaultSchedule.h"
#include "scheduler/InlineElementwise.h"
#include "scheduler/construct/FillHoles.h"
#include "scheduler/sunway/CheckLdmBudget.h"
#include "scheduler/sunway/FuseRowsInLdm.h"
#include "scheduler/sunway/FuseTileEpilogues.h"
#include "scheduler/sunway/LdmTiles.h"
#include "scheduler/sunway/StageThroughLdm.h"
#include "scheduler/sunway/TileOutputs.h"

namespace tk {
using namespace ir;

namespace {

// The CPE stack lives in LDM too: this much stays free for it.
constexpr int64_t kStackReserve = 8 * 1024;

// LDM bytes per CPE: the hardware description's `ldm` level, else the
// SW26010's 64 KiB.
int64_t ldmCapacity(const PipelineOptions &opts) {
  if (opts.construct && opts.construct->hw.family == TargetFamily::Sunway)
    if (const construct::MemLevel *m = opts.construct->hw.levelFor(Scope::Ldm); m && m->capacity > 0)
      return m->capacity;
  return 64 * 1024;
}

// The tiling of statement `a` (its nest at the assumed shapes).
LdmTiling chooseTiles(const Assign &a, const Op &op, const PipelineOptions &opts) {
  Op one = op;
  one.body = {a};
  construct::LoopNest nest = construct::buildLoopNest(one, opts.construct->shapes);
  // Computing time counts what the CPE code declares (TK_FLOPS): the float
  // arithmetic of the stored value per point, and the accumulation.
  Expr red = containsReduce(a.value) ? soleReduction(a.value, a.target->dtype) : nullptr;
  nest.flopsPerPoint = double(red ? floatOps(red->args[0]) + 1 : floatOps(a.value));
  int64_t budget = ldmCapacity(opts) - kStackReserve;
  const construct::HardwareDesc &hw = opts.construct->hw;
  bool twice = opts.sunwayDoubleBuffer;
  if (opts.swtvmLdmSizing) return swtvmLdmTiling(nest, hw, budget, twice);
  if (opts.sunwayFixedBuffers) return fixedLdmTiling(nest, hw, budget, twice);
  using B = PipelineOptions::SunwayBroadcast;
  B b = opts.sunwayBroadcast;
  return fastestLdmTiling(nest, hw, budget, twice, b != B::Off, b == B::Rows);
}

class SunwayHooks final : public TargetHooks {
public:
  KernelPtr constructKernel(const OpPtr &op, PassContext &ctx) const override {
    const PipelineOptions &opts = ctx.options();
    if (!opts.construct || opts.construct->hw.family != TargetFamily::Sunway || !opts.constructContractions)
      return nullptr;
    // Element-wise intermediates would each cost a DMA round trip through
    // main memory: their values go into the statements that read them.
    OpPtr inlined = inlineElementwise(op), work = fuseTileEpilogues(inlined);
    std::vector<MStmtPtr> stmts;
    for (const TensorPtr &t : work->intermediates) stmts.push_back(mAlloc(t, t->loc));
    bool tiled = false;
    for (const Assign &a : work->body) {
      if (tileOutputsApplies(a, nullptr)) {
        LdmTiling t = chooseTiles(a, *work, opts);
        stmts.push_back(tileOutputs(a, *work, t.tile, t.spread, opts.sunwayNaturalOrder, t.rows));
        tiled = true;
      } else {
        stmts.push_back(defaultStatement(a, *work, opts.target));
      }
    }
    MStmtPtr body = mBlock(std::move(stmts), op->loc);
    // A row operator reads each row once, one row per CPE at a time, when
    // the row fits the LDM (double-buffered; longer ones single, what it
    // writes streamed out in blocks); the statements' own tiles take
    // longer rows.
    std::optional<RowGroup> rows = rowGroup(*work, nullptr);
    int64_t budget = ldmCapacity(opts) - kStackReserve;
    int64_t cap = rows ? rowCapacity(*rows, budget) : 0, longCap = rows ? rowCapacity(*rows, budget, true) : 0;
    int64_t c = 0;
    bool known = rows && isConstInt(rows->columns, &c), fusedRows = false;
    if (longCap > cap && !(known && c <= cap)) {
      MStmtPtr fused = fuseRows(*work, *rows, longCap, true);
      body = known && c <= longCap ? fused
                                   : mIf(binary(BinOp::LE, rows->columns, intImm(longCap)), fused, body, op->loc);
      fusedRows = true;
    }
    if (cap > 0) {
      MStmtPtr fused = fuseRows(*work, *rows, cap);
      body = known && c <= cap ? fused : mIf(binary(BinOp::LE, rows->columns, intImm(cap)), fused, body, op->loc);
      fusedRows = true;
    }
    if (!fusedRows && !tiled && work == op) return nullptr;
    KernelPtr k = synthesizedKernel(work, TargetFamily::Sunway, body);
    std::string steps = std::string(inlined != op ? "InlineElementwise + " : "") +
                        (work != inlined ? "FuseTileEpilogues + " : "") + (fusedRows ? "FuseRowsInLdm" : "TileOutputs");
    ctx.kernelStep(steps.c_str(), *k);
    return k;
  }

  bool checkKernel(const Kernel &k, PassContext &ctx) const override {
    int64_t capacity = ldmCapacity(ctx.options());
    return checkLdmBudget(k, capacity, capacity - kStackReserve, ctx.diags());
  }

  bool versionsLoops() const override { return false; }

  std::optional<LoweredFunc> finish(LoweredFunc f, PassContext &ctx) const override {
    const PipelineOptions &opts = ctx.options();
    LoweredFunc staged =
        stageThroughLdm(f, ldmCapacity(opts) - kStackReserve, opts.sunwayDoubleBuffer,
                        opts.sunwayBroadcast != PipelineOptions::SunwayBroadcast::Off,
                        opts.sunwayBroadcast == PipelineOptions::SunwayBroadcast::Rows);
    ctx.funcStep("StageThroughLdm", staged);
    return staged;
  }
};

} // namespace

const TargetHooks &sunwayHooks() {
  static const SunwayHooks hooks;
  return hooks;
}

} // namespace tk
