#include "scheduler/sunway/LdmTiles.h"

#include "scheduler/sunway/SunwayCostModel.h"

#include <algorithm>
#include <cmath>

namespace tk {
using construct::Access;
using construct::LoopNest;

namespace {

// LdmBox's bookkeeping per buffer (alignment of ldm_malloc).
constexpr double kBufferOverhead = 32;
// swTVM's first guess for a buffer iterator, in elements.
constexpr int64_t kSwtvmInitial = 64;

// With double buffering, each input has two buffers.
double bufferBytes(const LoopNest &nest, const std::vector<int64_t> &tile, bool doubleBuffer) {
  double bytes = 0;
  for (const Access &a : nest.accesses)
    bytes += (doubleBuffer && !a.write ? 2 : 1) * (nest.footprint(a, tile) * a.elemBytes + kBufferOverhead);
  return bytes;
}

// DMA transfers for one box (tk_dma_box): trailing dimensions the box
// spans completely merge with the one before; one strided transfer covers
// the innermost two of what remains, the others loop.
double boxTransfers(const std::vector<double> &span, const Access &a) {
  size_t k = span.size();
  while (k > 1 && span[k - 1] == static_cast<double>(a.extent[k - 1])) --k;
  double n = 1;
  for (size_t t = 0; t + 2 < k; ++t) n *= span[t];
  return n;
}

} // namespace

bool sharesAlong(const LoopNest &nest, const Access &a, int d) {
  if (a.write || d < 0 || static_cast<size_t>(d) >= nest.dims.size() || nest.dims[d].reduction) return false;
  return std::all_of(a.coef.begin(), a.coef.end(), [&](const std::vector<int64_t> &row) { return row[d] == 0; });
}

LdmTiling costLdmTiling(const LoopNest &nest, const construct::HardwareDesc &hw, const std::vector<int64_t> &tile,
                        bool doubleBuffer, int spread) {
  double outTiles = 1, redBlocks = 1, points = 1;
  for (size_t d = 0; d < nest.dims.size(); ++d) {
    double blocks = std::ceil(static_cast<double>(nest.dims[d].extent) / static_cast<double>(tile[d]));
    (nest.dims[d].reduction ? redBlocks : outTiles) *= blocks;
    points *= static_cast<double>(tile[d]);
  }
  // One output tile: its inputs once per reduction block (`block`: one
  // block's worth), its output once. Inputs shared along the spread
  // dimension go to `shared` instead: one broadcast per round and block.
  CpeWork perTile, block, shared;
  for (const Access &a : nest.accesses) {
    std::vector<double> s = nest.spans(a, tile);
    double elems = 1;
    for (double x : s) elems *= x;
    double bytes = elems * a.elemBytes, transfers = boxTransfers(s, a);
    if (sharesAlong(nest, a, spread)) {
      shared.bytes += bytes, shared.transfers += transfers;
      continue;
    }
    if (!a.write) block.bytes += bytes, block.transfers += transfers;
    double times = a.write ? 1 : redBlocks;
    perTile.bytes += times * bytes;
    perTile.transfers += times * transfers;
  }
  perTile.flops = points * redBlocks * nest.flopsPerPoint;

  // Double-buffered input blocks are fetched ahead: all but each tile's
  // first, or, when the reduction is one block, all but the CPE's first tile.
  auto ahead = [&](double tiles) { return redBlocks > 1 ? tiles * (redBlocks - 1) : std::max(tiles - 1, 0.0); };
  int units = std::max(1, hw.units);
  std::vector<CpeWork> cpes;
  double rounds = 0;
  if (spread < 0) {
    // Output tiles go to the CPEs in contiguous chunks of cdiv(tiles, units).
    double chunk = std::ceil(outTiles / units), left = outTiles;
    for (int c = 0; c < units && left > 0; ++c) {
      double n = std::min(chunk, left);
      left -= n;
      CpeWork w{perTile.transfers * n, perTile.bytes * n, perTile.flops * n};
      if (doubleBuffer) w.aheadBytes = block.bytes * ahead(n), w.aheadTransfers = block.transfers * ahead(n);
      cpes.push_back(w);
    }
  } else {
    // Lockstep rounds of `units` tiles along the spread dimension: CPE c
    // holds the tiles of its column of the rounds that exist; CPE 0 also
    // issues the broadcasts (spawnSeconds charges every CPE for them). Every
    // CPE passes a barrier per shared block (two when synchronous; double
    // buffered, one more before each tile's first block).
    double along = std::ceil(static_cast<double>(nest.dims[spread].extent) / static_cast<double>(tile[spread]));
    double q = std::ceil(along / units), others = outTiles / along;
    rounds = others * q;
    for (int c = 0; c < units; ++c) {
      double n = others * std::ceil((along - c) / units);
      CpeWork w{perTile.transfers * n, perTile.bytes * n, perTile.flops * n};
      if (doubleBuffer) w.aheadBytes = block.bytes * ahead(n), w.aheadTransfers = block.transfers * ahead(n);
      if (shared.transfers > 0) w.barriers = doubleBuffer ? rounds * (redBlocks + 1) : 2 * rounds * redBlocks;
      if (c == 0) {
        w.bcastTransfers = shared.transfers * redBlocks * rounds, w.bcastBytes = shared.bytes * redBlocks * rounds;
        if (doubleBuffer)
          w.bcastAheadTransfers = shared.transfers * ahead(rounds), w.bcastAheadBytes = shared.bytes * ahead(rounds);
        w.transfers += w.bcastTransfers, w.bytes += w.bcastBytes;
        w.aheadTransfers += w.bcastAheadTransfers, w.aheadBytes += w.bcastAheadBytes;
      }
      cpes.push_back(w);
    }
  }
  LdmTiling out;
  out.tile = tile;
  out.spread = spread;
  out.ldmBytes = bufferBytes(nest, tile, doubleBuffer);
  out.dmaBytes = perTile.bytes * outTiles + shared.bytes * redBlocks * rounds;
  out.transfers = perTile.transfers * outTiles + shared.transfers * redBlocks * rounds;
  out.seconds = spawnSeconds(cpes, hw);
  return out;
}

namespace {

// swTVM's first guess, halved while it does not fit; then, with `grow`,
// swTVM's greedy growth.
std::vector<int64_t> swtvmTile(const LoopNest &nest, int64_t budgetBytes, bool grow) {
  size_t n = nest.dims.size();
  std::vector<bool> sizeIter(n, false);
  for (const Access &a : nest.accesses)
    if (!a.coef.empty())
      for (size_t d = 0; d < n; ++d) sizeIter[d] = sizeIter[d] || a.coef.back()[d] != 0;
  std::vector<int64_t> tile(n, 1);
  for (size_t d = 0; d < n; ++d)
    if (sizeIter[d]) tile[d] = std::min(nest.dims[d].extent, kSwtvmInitial);
  // swTVM's sizing itself knows no double buffering.
  auto fits = [&](const std::vector<int64_t> &t) {
    return bufferBytes(nest, t, false) <= static_cast<double>(budgetBytes);
  };
  while (!fits(tile)) { // shrink: halve the largest buffer iterator
    auto largest = std::max_element(tile.begin(), tile.end());
    if (*largest <= 1) break;
    *largest = (*largest + 1) / 2;
  }
  for (bool grown = grow; grown;) { // grow: double each in turn while it fits
    grown = false;
    for (size_t d = 0; d < n; ++d) {
      if (!sizeIter[d]) continue;
      std::vector<int64_t> t = tile;
      t[d] = std::min(nest.dims[d].extent, tile[d] * 2);
      if (t[d] > tile[d] && fits(t)) tile = t, grown = true;
    }
  }
  return tile;
}

} // namespace

LdmTiling swtvmLdmTiling(const LoopNest &nest, const construct::HardwareDesc &hw, int64_t budgetBytes,
                         bool doubleBuffer) {
  std::vector<int64_t> tile = swtvmTile(nest, budgetBytes, true);
  return costLdmTiling(nest, hw, tile, doubleBuffer && bufferBytes(nest, tile, true) <= double(budgetBytes));
}

LdmTiling fixedLdmTiling(const LoopNest &nest, const construct::HardwareDesc &hw, int64_t budgetBytes,
                         bool doubleBuffer) {
  std::vector<int64_t> tile = swtvmTile(nest, budgetBytes, false);
  return costLdmTiling(nest, hw, tile, doubleBuffer && bufferBytes(nest, tile, true) <= double(budgetBytes));
}

namespace {

// Depth-first over the dimensions; a dimension's candidates grow, so the
// first that does not fit ends its list (footprints only grow with a tile).
void search(const LoopNest &nest, const construct::HardwareDesc &hw, double budget, bool doubleBuffer,
            const std::vector<int> &spreads, size_t d, std::vector<int64_t> &tile, LdmTiling &best) {
  if (d == tile.size()) {
    // Double-buffered where the second buffers fit too, as StageThroughLdm
    // does; a larger tile without them may still be the faster one.
    for (int spread : spreads) {
      LdmTiling c = costLdmTiling(nest, hw, tile, doubleBuffer && bufferBytes(nest, tile, true) <= budget, spread);
      if (best.tile.empty() || c.seconds < best.seconds || (c.seconds == best.seconds && c.dmaBytes < best.dmaBytes))
        best = c;
    }
    return;
  }
  int64_t extent = nest.dims[d].extent;
  std::vector<int64_t> steps;
  for (int64_t s = 1; s < extent; s *= 2) steps.push_back(s);
  steps.push_back(extent);
  for (int64_t s : steps) {
    tile[d] = s;
    if (bufferBytes(nest, tile, false) > budget) break;
    search(nest, hw, budget, doubleBuffer, spreads, d + 1, tile, best);
  }
  tile[d] = 1;
}

} // namespace

LdmTiling fastestLdmTiling(const LoopNest &nest, const construct::HardwareDesc &hw, int64_t budgetBytes,
                           bool doubleBuffer, bool broadcast) {
  std::vector<int64_t> tile(nest.dims.size(), 1);
  // Chunks, and lockstep along each output dimension some input does not
  // depend on (the only ones where it shares a box).
  std::vector<int> spreads{-1};
  for (size_t d = 0; broadcast && d < nest.dims.size(); ++d)
    if (std::any_of(nest.accesses.begin(), nest.accesses.end(),
                    [&](const Access &a) { return sharesAlong(nest, a, static_cast<int>(d)); }))
      spreads.push_back(static_cast<int>(d));
  LdmTiling best;
  search(nest, hw, static_cast<double>(budgetBytes), doubleBuffer, spreads, 0, tile, best);
  return best.tile.empty() ? costLdmTiling(nest, hw, tile, false) : best;
}

} // namespace tk
