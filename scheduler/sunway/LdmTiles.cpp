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

// Tiles of `tile` along dimension `d` of `nest`.
double tilesAlong(const LoopNest &nest, const std::vector<int64_t> &tile, size_t d) {
  return std::ceil(static_cast<double>(nest.dims[d].extent) / static_cast<double>(tile[d]));
}

// How an input of a tiling reaches the CPEs (TileOutputs' lockstep rounds):
// its own box per CPE, one box for all (broadcast), one per CPE row (row
// broadcast), or the union of the 8 CPE columns' boxes for all.
enum class Reach { Own, All, Row, Columns };

Reach reach(const LoopNest &nest, const Access &a, int spread, int rows) {
  bool alongSpread = sharesAlong(nest, a, spread);
  if (rows < 0) return alongSpread ? Reach::All : Reach::Own;
  bool alongRows = sharesAlong(nest, a, rows);
  if (alongSpread) return alongRows ? Reach::All : Reach::Row;
  return alongRows ? Reach::Columns : Reach::Own;
}

// The tile whose box a CPE holds of `a`: the union of 8 along `spread`.
std::vector<int64_t> boxTile(const LoopNest &nest, const Access &a, const std::vector<int64_t> &tile, int spread,
                             int rows) {
  if (reach(nest, a, spread, rows) != Reach::Columns) return tile;
  std::vector<int64_t> t = tile;
  t[spread] = std::min(nest.dims[spread].extent, t[spread] * 8);
  return t;
}

// With double buffering, each input has two buffers.
double bufferBytes(const LoopNest &nest, const std::vector<int64_t> &tile, bool doubleBuffer, int spread = -1,
                   int rows = -1) {
  double bytes = 0;
  for (const Access &a : nest.accesses)
    bytes += (doubleBuffer && !a.write ? 2 : 1) *
             (nest.footprint(a, boxTile(nest, a, tile, spread, rows)) * a.elemBytes + kBufferOverhead);
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
                        bool doubleBuffer, int spread, int rows) {
  double outTiles = 1, redBlocks = 1, points = 1;
  for (size_t d = 0; d < nest.dims.size(); ++d) {
    double blocks = tilesAlong(nest, tile, d);
    (nest.dims[d].reduction ? redBlocks : outTiles) *= blocks;
    points *= static_cast<double>(tile[d]);
  }
  if (spread < 0) rows = -1;
  // One output tile: its inputs once per reduction block (`block`: one
  // block's worth), its output once. Inputs shared in the lockstep rounds
  // go to `shared` (one broadcast per round and block for all CPEs) or
  // `perRow` (one per round and block for each CPE row) instead.
  CpeWork perTile, block, shared, perRow;
  for (const Access &a : nest.accesses) {
    std::vector<double> s = nest.spans(a, boxTile(nest, a, tile, spread, rows));
    double elems = 1;
    for (double x : s) elems *= x;
    double bytes = elems * a.elemBytes, transfers = boxTransfers(s, a);
    Reach r = reach(nest, a, spread, rows);
    if (r != Reach::Own) {
      CpeWork &w = r == Reach::Row ? perRow : shared;
      w.bytes += bytes, w.transfers += transfers;
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
  double rounds = 0, rowUnits = 1;
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
    // Lockstep rounds of `units` tiles, along the spread dimension (lanes
    // of 64) or along it and `rows` (8 x 8): CPE c holds the tiles of its
    // lanes in the rounds that exist. CPE 0 issues the broadcasts to all,
    // the first CPE of each row its row's (spawnSeconds charges them to the
    // CPEs they reach). Every CPE passes a barrier per shared block (two
    // when synchronous; double buffered, one more before each tile's first
    // block).
    double colLanes = rows < 0 ? units : kRowCpes, along = tilesAlong(nest, tile, spread);
    rowUnits = rows < 0 ? 1 : units / kRowCpes;
    double down = rows < 0 ? 1 : tilesAlong(nest, tile, rows), others = outTiles / along / down;
    rounds = others * std::ceil(along / colLanes) * std::ceil(down / rowUnits);
    bool broadcasts = shared.transfers > 0 || perRow.transfers > 0;
    for (int c = 0; c < units; ++c) {
      double col = rows < 0 ? c : c % kRowCpes, row = rows < 0 ? 0 : c / kRowCpes;
      double n = others * std::ceil((along - col) / colLanes) * std::ceil((down - row) / rowUnits);
      CpeWork w{perTile.transfers * n, perTile.bytes * n, perTile.flops * n};
      if (doubleBuffer) w.aheadBytes = block.bytes * ahead(n), w.aheadTransfers = block.transfers * ahead(n);
      if (broadcasts) w.barriers = doubleBuffer ? rounds * (redBlocks + 1) : 2 * rounds * redBlocks;
      auto issue = [&](const CpeWork &b, bool row) {
        double t = b.transfers * redBlocks * rounds, by = b.bytes * redBlocks * rounds;
        double at = doubleBuffer ? b.transfers * ahead(rounds) : 0, ab = doubleBuffer ? b.bytes * ahead(rounds) : 0;
        w.bcastTransfers += t, w.bcastBytes += by, w.bcastAheadTransfers += at, w.bcastAheadBytes += ab;
        if (row) w.rowTransfers += t, w.rowBytes += by, w.rowAheadTransfers += at, w.rowAheadBytes += ab;
        w.transfers += t, w.bytes += by, w.aheadTransfers += at, w.aheadBytes += ab;
      };
      if (c == 0) issue(shared, false);
      if (rows >= 0 && c % kRowCpes == 0) issue(perRow, true);
      cpes.push_back(w);
    }
  }
  LdmTiling out;
  out.tile = tile;
  out.spread = spread;
  out.rows = rows;
  out.ldmBytes = bufferBytes(nest, tile, doubleBuffer, spread, rows);
  out.dmaBytes = perTile.bytes * outTiles + (shared.bytes + perRow.bytes * rowUnits) * redBlocks * rounds;
  out.transfers = perTile.transfers * outTiles + (shared.transfers + perRow.transfers * rowUnits) * redBlocks * rounds;
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

// The lockstep arrangements a search tries: chunks (-1, -1), 64 lanes
// along one dimension (d, -1), or 8 x 8 along two (spread, rows).
struct Lockstep {
  int spread, rows;
};

// Depth-first over the dimensions; a dimension's candidates grow, so the
// first that does not fit ends its list (footprints only grow with a tile).
void search(const LoopNest &nest, const construct::HardwareDesc &hw, double budget, bool doubleBuffer,
            const std::vector<Lockstep> &modes, size_t d, std::vector<int64_t> &tile, LdmTiling &best) {
  if (d == tile.size()) {
    // Double-buffered where the second buffers fit too, as StageThroughLdm
    // does; a larger tile without them may still be the faster one. In
    // 8 x 8 rounds the columns' union box needs whole tiles along `spread`
    // (StageThroughLdm finds no constant union box for clamped ones), and
    // with fewer than 8 tiles along either dimension CPE rows or columns
    // would idle in every round.
    for (const Lockstep &m : modes) {
      if (m.rows >= 0 && (nest.dims[m.spread].extent % tile[m.spread] != 0 || tilesAlong(nest, tile, m.spread) < 8 ||
                          tilesAlong(nest, tile, m.rows) < 8))
        continue;
      if (bufferBytes(nest, tile, false, m.spread, m.rows) > budget) continue;
      bool twice = doubleBuffer && bufferBytes(nest, tile, true, m.spread, m.rows) <= budget;
      LdmTiling c = costLdmTiling(nest, hw, tile, twice, m.spread, m.rows);
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
    search(nest, hw, budget, doubleBuffer, modes, d + 1, tile, best);
  }
  tile[d] = 1;
}

} // namespace

LdmTiling fastestLdmTiling(const LoopNest &nest, const construct::HardwareDesc &hw, int64_t budgetBytes,
                           bool doubleBuffer, bool broadcast, bool rows) {
  std::vector<int64_t> tile(nest.dims.size(), 1);
  // Chunks; lockstep along each output dimension some input does not
  // depend on (the only ones where it shares a box); with `rows`, 8 x 8
  // rounds along two output dimensions where some input has a box per CPE
  // row or per CPE column, when there are any.
  std::vector<Lockstep> modes{{-1, -1}};
  int outputs = 0;
  while (outputs < static_cast<int>(nest.dims.size()) && !nest.dims[outputs].reduction) ++outputs;
  auto any = [&](auto pred) { return std::any_of(nest.accesses.begin(), nest.accesses.end(), pred); };
  for (int d = 0; broadcast && d < outputs; ++d)
    if (any([&](const Access &a) { return sharesAlong(nest, a, d); })) modes.push_back({d, -1});
  for (int s = 0; broadcast && rows && s < outputs; ++s)
    for (int r = 0; r < outputs; ++r)
      if (r != s && any([&](const Access &a) {
            Reach x = reach(nest, a, s, r);
            return x == Reach::Row || x == Reach::Columns;
          }))
        modes.push_back({s, r});
  if (rows && std::any_of(modes.begin(), modes.end(), [](const Lockstep &m) { return m.rows >= 0; }))
    modes.erase(std::remove_if(modes.begin(), modes.end(), [](const Lockstep &m) { return m.rows < 0; }), modes.end());
  LdmTiling best;
  search(nest, hw, static_cast<double>(budgetBytes), doubleBuffer, modes, 0, tile, best);
  if (best.tile.empty() && rows) return fastestLdmTiling(nest, hw, budgetBytes, doubleBuffer, broadcast, false);
  return best.tile.empty() ? costLdmTiling(nest, hw, tile, false) : best;
}

} // namespace tk
