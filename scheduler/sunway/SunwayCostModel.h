// SunwayCostModel: the time a spawn over the 64 CPEs of one core group
// takes, from what each CPE did (DMA transfers and bytes, floating-point
// operations) and the hardware description — the model behind LdmTiles'
// choice and the modelled tables of bench/ (docs/sunway.md, "Performance
// model"). A transfer costs the main-memory latency plus its bytes over the
// CPE's share of the core group's bandwidth (CG bandwidth / CPEs). A CPE
// waits for its ordinary transfers, so their time adds to its computing
// time (flops / its FLOP rate); the transfers it issued ahead (double
// buffering: the next block's get before computing on the current one)
// overlap its computing, so of those two only the longer counts:
//   sync DMA + max(ahead DMA, compute).
// The spawn takes the slowest CPE's time, but never less than all bytes
// over the core group's bandwidth. A broadcast (one CPE's get that lands in
// every CPE) reads its bytes once at the core group's full bandwidth, and
// every CPE waits for it: it is charged to every CPE's timeline as one
// transfer with a 1/units share of its bytes. A row broadcast (one CPE's
// get that lands in the 8 CPEs of its row of the array) waits only that
// row, and the rows' broadcasts go at once, each at an eighth of the
// bandwidth: it is charged to each CPE of its row as one transfer with an
// eighth of its bytes. Each barrier a CPE passes costs the description's
// `barrier` (stdlib/targets/sw26010*.hw: one main-memory latency, an
// assumption for want of a published figure) and overlaps nothing. The
// FLOP rate is the vector peak: the model assumes the CPE compiler
// vectorizes the inner loops, so modelled
// compute is a lower bound on time.
#pragma once
#include "scheduler/construct/HardwareDesc.h"

#include <vector>

namespace tk {

struct CpeWork {
  double transfers = 0; // DMA transfers issued (get and put)
  double bytes = 0;     // bytes they moved
  double flops = 0;     // floating-point operations computed
  double aheadTransfers = 0, aheadBytes = 0; // of the transfers, those issued ahead
  // Of the transfers this CPE issued, the broadcasts (and of those, the
  // ones issued ahead): spawnSeconds spreads them over every CPE.
  double bcastTransfers = 0, bcastBytes = 0, bcastAheadTransfers = 0, bcastAheadBytes = 0;
  double barriers = 0; // array barriers passed
  // Of the broadcasts, those to this CPE's row alone.
  double rowTransfers = 0, rowBytes = 0, rowAheadTransfers = 0, rowAheadBytes = 0;
};

// CPEs per row of the array (8 x 8 on both Sunway chips): a row
// broadcast's mask names one row, CPEs c / kRowCpes.
constexpr int kRowCpes = 8;

// Requires hw to have a `global`-scope level (main memory) and a FLOP rate.
double cpeSeconds(const CpeWork &w, const construct::HardwareDesc &hw);
double spawnSeconds(const std::vector<CpeWork> &cpes, const construct::HardwareDesc &hw);

} // namespace tk
