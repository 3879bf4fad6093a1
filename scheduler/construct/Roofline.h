// Roofline: the analytical estimate that ranks constructed states — the
// slower of compute (peak rate of the units the tiling keeps busy, derated
// for padding, partial vectors and too few independent accumulators) and
// the traffic into each level over the bandwidth of the level above it.
#pragma once
#include "scheduler/construct/ETIR.h"

namespace tk::construct {

struct Estimate {
  double seconds = 0;
  double computeSeconds = 0;
  double memorySeconds = 0;
  int64_t parallelTiles = 0; // tiles spread over the units
};

Estimate estimate(const Space &space, const ETIR &s);

// The level whose tiles are spread over the units: the first one that is
// private to a unit (CPU L2/L1, GPU shared memory, Sunway LDM).
size_t unitLevel(const HardwareDesc &hw);

} // namespace tk::construct
