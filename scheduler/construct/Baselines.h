// Baselines beside Gensor, for honest comparison on the same model:
// Roller-style greedy tree construction and exhaustive enumeration of the
// hardware-centric space (feasible for small spaces only).
#pragma once
#include "scheduler/construct/Gensor.h"

namespace tk::construct {

// Roller: level by level from main memory to registers, start from the
// smallest steps and repeatedly take the tile step with the highest
// benefit (traffic saved per footprint added) that still fits, until no
// step helps (benefit <= 1) or fits; then move to the next level. Returns
// the final state with its estimate.
Ranked rollerConstruct(const Space &space);

struct ExhaustiveResult {
  Ranked best;
  std::vector<Ranked> top; // the `keep` lowest estimates, best first (ties: lower state first)
  size_t states = 0;    // legal states estimated
  bool complete = true; // false: stopped at `limit`
};

// Every legal nesting of step-list tiles over all levels (faster tiles no
// larger than slower ones, every level within capacity), estimated with
// the roofline model; stops after `limit` states. Keeps the `keep` best
// (the measured comparison in bench/ times more than the estimate's best).
ExhaustiveResult exhaustiveBest(const Space &space, size_t limit = 2000000, size_t keep = 1);

} // namespace tk::construct
