#include "scheduler/sunway/SunwayCostModel.h"

#include "ir/Diagnostics.h"

#include <algorithm>

namespace tk {

namespace {

const construct::MemLevel &mainMemory(const construct::HardwareDesc &hw) {
  if (const construct::MemLevel *m = hw.levelFor(ir::Scope::Global)) return *m;
  throw InternalError("the Sunway cost model needs a hardware description with a main-memory level");
}

} // namespace

double cpeSeconds(const CpeWork &w, const construct::HardwareDesc &hw) {
  const construct::MemLevel &mem = mainMemory(hw);
  double share = mem.bandwidth / std::max(1, hw.units); // bytes per ns one CPE streams when all do
  auto dma = [&](double transfers, double bytes) { return transfers * mem.latency + bytes / share; };
  double compute = hw.gflopsF32 > 0 ? w.flops / hw.gflopsF32 : 0;
  double ns = dma(w.transfers - w.aheadTransfers, w.bytes - w.aheadBytes) + w.barriers * mem.latency +
              std::max(dma(w.aheadTransfers, w.aheadBytes), compute);
  return ns * 1e-9;
}

double spawnSeconds(const std::vector<CpeWork> &cpes, const construct::HardwareDesc &hw) {
  CpeWork bcast; // every broadcast of the spawn
  for (const CpeWork &w : cpes) {
    bcast.transfers += w.bcastTransfers, bcast.bytes += w.bcastBytes;
    bcast.aheadTransfers += w.bcastAheadTransfers, bcast.aheadBytes += w.bcastAheadBytes;
  }
  // Every CPE of the core group waits for the broadcasts, idle or not.
  double units = std::max(1, hw.units), slowest = 0, bytes = 0;
  for (size_t c = 0; c < std::max(cpes.size(), static_cast<size_t>(units)); ++c) {
    CpeWork w = c < cpes.size() ? cpes[c] : CpeWork{};
    w.transfers -= w.bcastTransfers, w.bytes -= w.bcastBytes;
    w.aheadTransfers -= w.bcastAheadTransfers, w.aheadBytes -= w.bcastAheadBytes;
    w.transfers += bcast.transfers, w.bytes += bcast.bytes / units;
    w.aheadTransfers += bcast.aheadTransfers, w.aheadBytes += bcast.aheadBytes / units;
    slowest = std::max(slowest, cpeSeconds(w, hw));
    bytes += w.bytes;
  }
  return std::max(slowest, bytes / mainMemory(hw).bandwidth * 1e-9);
}

} // namespace tk
