// The sunway target's pipeline hooks (scheduler/TargetHooks.h): loops stay
// unversioned (the C compiler of the CPE sees plain guarded loops, and
// StageThroughLdm plans its LDM boxes on the loops as scheduled); the last
// step stages main-memory tensors through LDM.
#include "scheduler/sunway/SunwayHooks.h"

#include "scheduler/construct/FillHoles.h"
#include "scheduler/sunway/StageThroughLdm.h"

namespace tk {

namespace {

// The CPE stack lives in LDM too: this much stays free for it.
constexpr int64_t kStackReserve = 8 * 1024;

// LDM bytes per CPE: the hardware description's `ldm` level, else the
// SW26010's 64 KiB.
int64_t ldmCapacity(const PipelineOptions &opts) {
  if (opts.construct && opts.construct->hw.family == ir::TargetFamily::Sunway)
    if (const construct::MemLevel *m = opts.construct->hw.levelFor(ir::Scope::Ldm); m && m->capacity > 0)
      return m->capacity;
  return 64 * 1024;
}

class SunwayHooks final : public TargetHooks {
public:
  bool versionsLoops() const override { return false; }

  std::optional<ir::LoweredFunc> finish(ir::LoweredFunc f, PassContext &ctx) const override {
    ir::LoweredFunc staged = stageThroughLdm(f, ldmCapacity(ctx.options()) - kStackReserve);
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
