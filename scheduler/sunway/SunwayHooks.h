// The sunway target's scheduling hooks (scheduler/TargetHooks.h).
#pragma once
#include "scheduler/TargetHooks.h"

namespace tk {

const TargetHooks &sunwayHooks();

} // namespace tk
