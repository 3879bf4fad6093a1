// SunwayCostModel: the time a spawn over the 64 CPEs of one core group
// takes, from what each CPE did (DMA transfers and bytes, floating-point
// operations) and the hardware description — the model behind LdmTiles'
// choice and the modelled tables of bench/ (docs/sunway.md, "Performance
// model"). A CPE's DMA is synchronous (it waits for each transfer before
// computing on it), so its time is the sum of
//   transfers x main-memory latency + bytes / (CG bandwidth / CPEs)
//   + flops / (its FLOP rate),
// and the spawn takes the slowest CPE's time, but never less than all bytes
// over the core group's bandwidth. The FLOP rate is the vector peak: the
// model assumes the CPE compiler vectorizes the inner loops, so modelled
// compute is a lower bound on time.
#pragma once
#include "scheduler/construct/HardwareDesc.h"

#include <vector>

namespace tk {

struct CpeWork {
  double transfers = 0; // DMA transfers issued (get and put)
  double bytes = 0;     // bytes they moved
  double flops = 0;     // floating-point operations computed
};

// Requires hw to have a `global`-scope level (main memory) and a FLOP rate.
double cpeSeconds(const CpeWork &w, const construct::HardwareDesc &hw);
double spawnSeconds(const std::vector<CpeWork> &cpes, const construct::HardwareDesc &hw);

} // namespace tk
