// The sunway target's pipeline hooks (scheduler/TargetHooks.h): loops stay
// unversioned (the C compiler of the CPE sees plain guarded loops, and
// StageThroughLdm plans its LDM boxes on the loops as scheduled).
#include "scheduler/sunway/SunwayHooks.h"

namespace tk {

namespace {

class SunwayHooks final : public TargetHooks {
public:
  bool versionsLoops() const override { return false; }
};

} // namespace

const TargetHooks &sunwayHooks() {
  static const SunwayHooks hooks;
  return hooks;
}

} // namespace tk
