// TuneDecisions: a LoopTune nest as the cost model's decision sequence
// (costmodel/Decisions.h) — the op, its variables as `loop`s, the threads,
// then one `nest_loop(dim, step, iterations, tail) [var]` per loop of the
// tuned order, outermost first — so that `tkc tune --records-out` records
// every nest it times in the format the model trains on (docs/records.md).
#pragma once
#include "scheduler/costmodel/Decisions.h"
#include "scheduler/looptune/TuneNest.h"

namespace tk::looptune {

// The decisions of `n` (the cursor is not a decision: it changes no code)
// for a machine of `units` cores.
costmodel::DecisionSequence tuneDecisions(const TuneNest &n, int units);

} // namespace tk::looptune
