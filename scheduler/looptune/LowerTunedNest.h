// TuneNest -> loop IR: the function a tuned schedule compiles to.
#pragma once
#include "ir/LoopIR.h"
#include "scheduler/looptune/TuneNest.h"

#include <string>

namespace tk::looptune {

// Builds the exported function `symbol` computing n.op in n's loop order.
// A reduction first initializes its target with the identity (a nest over
// the target's variables, outermost loop parallel on cores), then the
// compute nest accumulates into it (`T = T + body`, max/min alike); a plain
// statement is only the compute nest. A loop over variable v with step s
// runs ceil(R / s) iterations, R being the range the enclosing loop over v
// leaves (the extent for the outermost one; `min(S, R' - t*S)` inside a
// tail); v's value is the sum of its loops' variables times their steps.
// The compute nest's outermost loop is parallel on cores when it iterates a
// target variable. Accesses are then predicated (PredicateAccesses) and the
// result verified (verifyLoopIR).
ir::LoweredFunc lowerTunedNest(const TuneNest &n, const std::string &symbol);

} // namespace tk::looptune
