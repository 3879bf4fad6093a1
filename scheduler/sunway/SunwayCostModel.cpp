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
  double barrier = hw.barrierNs > 0 ? hw.barrierNs : mem.latency;
  double ns = dma(w.transfers - w.aheadTransfers, w.bytes - w.aheadBytes) + w.barriers * barrier +
              std::max(dma(w.aheadTransfers, w.aheadBytes), compute);
  return ns * 1e-9;
}

double spawnSeconds(const std::vector<CpeWork> &cpes, const construct::HardwareDesc &hw) {
  // Every broadcast to all CPEs, and each row's broadcasts.
  double units = std::max(1, hw.units), slowest = 0, bytes = 0;
  size_t n = std::max(cpes.size(), static_cast<size_t>(units));
  CpeWork all;
  std::vector<CpeWork> rows((n + kRowCpes - 1) / kRowCpes);
  for (size_t c = 0; c < cpes.size(); ++c) {
    const CpeWork &w = cpes[c];
    all.transfers += w.bcastTransfers - w.rowTransfers, all.bytes += w.bcastBytes - w.rowBytes;
    all.aheadTransfers += w.bcastAheadTransfers - w.rowAheadTransfers;
    all.aheadBytes += w.bcastAheadBytes - w.rowAheadBytes;
    CpeWork &r = rows[c / kRowCpes];
    r.transfers += w.rowTransfers, r.bytes += w.rowBytes;
    r.aheadTransfers += w.rowAheadTransfers, r.aheadBytes += w.rowAheadBytes;
  }
  // Every CPE waits for the broadcasts that reach it, idle or not.
  for (size_t c = 0; c < n; ++c) {
    CpeWork w = c < cpes.size() ? cpes[c] : CpeWork{};
    const CpeWork &r = rows[c / kRowCpes];
    w.transfers -= w.bcastTransfers, w.bytes -= w.bcastBytes;
    w.aheadTransfers -= w.bcastAheadTransfers, w.aheadBytes -= w.bcastAheadBytes;
    w.transfers += all.transfers + r.transfers, w.bytes += all.bytes / units + r.bytes / kRowCpes;
    w.aheadTransfers += all.aheadTransfers + r.aheadTransfers;
    w.aheadBytes += all.aheadBytes / units + r.aheadBytes / kRowCpes;
    slowest = std::max(slowest, cpeSeconds(w, hw));
    bytes += w.bytes;
  }
  return std::max(slowest, bytes / mainMemory(hw).bandwidth * 1e-9);
}

} // namespace tk
