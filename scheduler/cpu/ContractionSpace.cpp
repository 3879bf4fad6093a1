#include "scheduler/cpu/ContractionSpace.h"

#include "scheduler/Refusal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>

namespace tk {

bool contractionTilesLegal(const ContractionTiles &t, const TargetDesc &target, int elemBytes, std::string *reason) {
  const int64_t limit = int64_t(1) << 20;
  for (int64_t v : {t.mr, t.nr, t.kc, t.mc, t.nc})
    if (v < 1 || v > limit) return refuse(reason, "a tile size is not in 1 .. 2^20");
  for (int64_t v : {t.ka, t.kd, t.streamBytes})
    if (v < 0 || v > (int64_t(1) << 40)) return refuse(reason, "a depth or the stream threshold is out of range");
  int64_t lanes = std::max(1, target.vectorBits / (8 * elemBytes));
  if (t.nr % lanes != 0) return refuse(reason, "nr is not a whole number of vectors");
  int64_t v = t.nr / lanes;
  // Five vectors per row leave 5 rows: measured slower than 6 x 4
  // (chooseContractionTiles has the numbers).
  if (v > 4) return refuse(reason, "nr is more than four vectors");
  if (t.mr * v + v + 1 > target.vectorRegisters) return refuse(reason, "the register tile does not fit the register file");
  if (t.mc % t.mr != 0 || t.nc % t.nr != 0) return refuse(reason, "the task tile is not whole register tiles");
  if (t.ka % t.kc != 0 || t.kd % t.kc != 0) return refuse(reason, "ka or kd is not a multiple of kc");
  return true;
}

ContractionTiles randomContractionTiles(const construct::HardwareDesc &hw, const TargetDesc &target, int elemBytes,
                                        construct::Rng &rng) {
  auto pick = [&](int64_t n) { return std::min<int64_t>(n - 1, static_cast<int64_t>(rng.uniform() * double(n))); };
  auto logUniform = [&](int64_t hi) { return std::max<int64_t>(1, std::llround(std::exp2(rng.uniform() * std::log2(hi)))); };
  int64_t lanes = std::max(1, target.vectorBits / (8 * elemBytes));
  std::vector<std::pair<int64_t, int64_t>> regTiles; // (mr, vectors per row)
  for (int64_t v = 1; v <= 4; ++v)
    for (int64_t mr = 1; mr * v + v + 1 <= target.vectorRegisters; ++mr) regTiles.push_back({mr, v});
  ContractionTiles t;
  auto [mr, v] = regTiles[pick(int64_t(regTiles.size()))];
  t.mr = mr;
  t.nr = v * lanes;
  t.kc = int64_t(16) << pick(6);
  t.mc = t.mr * logUniform(64);
  t.nc = t.nr * logUniform(16);
  t.ka = t.kc << pick(4);
  t.kd = rng.uniform() < 0.5 ? 0 : t.kc << pick(5);
  size_t unit = construct::unitLevel(hw);
  t.streamBytes = rng.uniform() < 0.5 ? 0 : int64_t(hw.units) * hw.unitCapacity(unit);
  return t;
}

costmodel::DecisionSequence contractionDecisions(const construct::Space &space, const ContractionTiles &t) {
  using costmodel::PrimitiveKind;
  const construct::LoopNest &nest = space.nest();
  size_t n = nest.dims.size();
  int64_t m = nest.dims[n - 3].extent, cols = nest.dims[n - 2].extent, k = nest.dims[n - 1].extent, batch = 1;
  for (size_t d = 0; d + 3 < n; ++d) batch *= nest.dims[d].extent;
  auto cdiv = [](int64_t a, int64_t b) { return double((a + b - 1) / std::max<int64_t>(b, 1)); };
  double outBytes = double(batch) * double(m) * double(cols) * nest.elemBytes;
  double tasks = double(batch) * cdiv(m, t.mc) * cdiv(cols, t.nc), units = std::max(1, space.hw().units);
  bool direct = t.kd > 0 && cols <= t.nr;
  bool streamed = t.streamBytes > 0 && k <= t.kc && outBytes >= double(t.streamBytes);
  costmodel::DecisionSequence seq = costmodel::nestDecisions(nest, space.hw());
  seq.push_back({PrimitiveKind::RegisterTile, {double(t.mr), double(t.nr), cdiv(m, t.mr), cdiv(cols, t.nr)}, {}});
  seq.push_back({PrimitiveKind::PackDepth, {double(t.kc), double(std::max(t.ka, t.kc)), cdiv(k, t.kc)}, {}});
  seq.push_back({PrimitiveKind::TaskTile, {double(t.mc), double(t.nc), tasks, std::ceil(tasks / units) * units - tasks}, {}});
  seq.push_back({PrimitiveKind::DirectDepth, {double(t.kd), direct ? 1.0 : 0.0, double(k)}, {}});
  seq.push_back({PrimitiveKind::Stream, {double(t.streamBytes), streamed ? 1.0 : 0.0, outBytes}, {}});
  return seq;
}

void rankBlockingsByModel(const std::string &opName, const construct::Space &space,
                          const construct::ConstructOptions &opts, const TargetDesc &target, size_t limit,
                          std::vector<ContractionTiles> &cands, std::vector<std::string> &origin) {
  construct::Rng rng(opts.gensor.seed);
  for (size_t tries = 0; cands.size() < limit && tries < 16 * limit; ++tries) {
    ContractionTiles t = randomContractionTiles(opts.hw, target, space.nest().elemBytes, rng);
    if (std::find(cands.begin(), cands.end(), t) == cands.end()) cands.push_back(t), origin.push_back("random");
  }
  std::vector<costmodel::DecisionSequence> seqs;
  for (const ContractionTiles &t : cands) seqs.push_back(contractionDecisions(space, t));
  std::vector<double> score;
  std::vector<size_t> order = construct::modelOrder(opts, seqs, &score);
  if (std::ostream *tr = opts.gensor.trace) {
    *tr << fmt::format("// cost model: {} blockings of {} scored, best first:\n", cands.size(), opName);
    for (size_t i = 0; i < std::min<size_t>(order.size(), 5); ++i)
      *tr << fmt::format("//   {:.4f} {}: {}\n", score[order[i]], origin[order[i]], printContractionTiles(cands[order[i]]));
  }
  std::vector<ContractionTiles> sorted;
  std::vector<std::string> sortedOrigin;
  for (size_t i : order) sorted.push_back(cands[i]), sortedOrigin.push_back(origin[i]);
  cands = std::move(sorted);
  origin = std::move(sortedOrigin);
}

std::string printContractionTiles(const ContractionTiles &t) {
  return fmt::format("mr {} nr {} kc {} ka {} mc {} nc {} kd {} stream {}", t.mr, t.nr, t.kc, t.ka, t.mc, t.nc, t.kd,
                     t.streamBytes);
}

std::optional<ContractionTiles> contractionTilesOf(const costmodel::DecisionSequence &seq) {
  using costmodel::PrimitiveKind;
  auto find = [&](PrimitiveKind k) -> const std::vector<double> * {
    for (const costmodel::Primitive &p : seq)
      if (p.kind == k && p.numbers.size() == size_t(costmodel::primitiveNumbers(k))) return &p.numbers;
    return nullptr;
  };
  auto reg = find(PrimitiveKind::RegisterTile), pack = find(PrimitiveKind::PackDepth), task = find(PrimitiveKind::TaskTile),
       direct = find(PrimitiveKind::DirectDepth), stream = find(PrimitiveKind::Stream);
  if (!reg || !pack || !task || !direct || !stream) return std::nullopt;
  auto i = [](double v) { return static_cast<int64_t>(std::llround(v)); };
  ContractionTiles t;
  t.mr = i((*reg)[0]), t.nr = i((*reg)[1]);
  t.kc = i((*pack)[0]), t.ka = i((*pack)[1]);
  t.mc = i((*task)[0]), t.nc = i((*task)[1]);
  t.kd = i((*direct)[0]);
  t.streamBytes = i((*stream)[0]);
  return t;
}

construct::Estimate contractionEstimate(const construct::Space &space, const ContractionTiles &t) {
  const construct::LoopNest &nest = space.nest();
  size_t n = nest.dims.size(), reg = space.levels() - 1;
  construct::ETIR s = space.initial();
  // dims [batch.., i, j, k]: the blocking's sizes, clamped to the extents.
  auto tile = [&](int64_t i, int64_t j, int64_t k) {
    std::vector<int64_t> v(n, 1);
    v[n - 3] = std::min(i, nest.dims[n - 3].extent);
    v[n - 2] = std::min(j, nest.dims[n - 2].extent);
    v[n - 1] = std::min(k, nest.dims[n - 1].extent);
    return v;
  };
  size_t unit = std::min(construct::unitLevel(space.hw()), reg);
  for (size_t l = 1; l < reg; ++l) s.tile[l] = l <= unit ? tile(t.mc, t.nc, t.kc) : tile(t.mr, t.nr, t.kc);
  s.tile[reg] = tile(t.mr, t.nr, 1);
  return construct::estimate(space, s);
}

} // namespace tk
