// The cpu target's scheduling hooks (scheduler/TargetHooks.h).
#pragma once
#include "scheduler/TargetHooks.h"

namespace tk {

const TargetHooks &cpuHooks();

} // namespace tk
