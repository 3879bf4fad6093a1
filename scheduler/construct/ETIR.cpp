#include "scheduler/construct/ETIR.h"

#include "ir/IntArith.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace tk::construct {

bool ETIR::operator<(const ETIR &o) const {
  return std::tie(level, tile, vthread) < std::tie(o.level, o.tile, o.vthread);
}
bool ETIR::operator==(const ETIR &o) const { return level == o.level && tile == o.tile && vthread == o.vthread; }

static std::string list(const std::vector<int64_t> &v) { return fmt::format("[{}]", fmt::join(v, ",")); }

std::string ETIR::str() const {
  std::string s;
  for (size_t l = 1; l < tile.size(); ++l) s += (l > 1 ? " " : "") + list(tile[l]) + (l == level ? "*" : "");
  std::vector<int64_t> vt(vthread.begin(), vthread.end());
  if (std::any_of(vthread.begin(), vthread.end(), [](int v) { return v > 1; })) s += " vt" + list(vt);
  return s;
}

std::string Action::str(const LoopNest &nest) const {
  switch (kind) {
  case Kind::Tile: return "tile(" + nest.dims[dim].name + ")";
  case Kind::InvTile: return "invTile(" + nest.dims[dim].name + ")";
  case Kind::Cache: return "cache";
  case Kind::VThread: return fmt::format("setVThread({}, {})", nest.dims[dim].name, factor);
  }
  return "";
}

double tilingBenefit(double qBefore, double fBefore, double qAfter, double fAfter) {
  if (qAfter <= 0 || fBefore <= 0) return 0;
  return qBefore * fAfter / (qAfter * fBefore);
}

double cachingBenefit(double latencyLow, double bandwidthLow, double latencyHigh, double bandwidthHigh, double bytes) {
  return (latencyLow + bytes / bandwidthLow) / (latencyHigh + bytes / bandwidthHigh);
}

double vthreadBenefit(int64_t width, int64_t bankElems, int v) {
  auto cdiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  return static_cast<double>(cdiv(width, bankElems)) / static_cast<double>(cdiv(width, v * bankElems));
}

Space::Space(LoopNest nest, HardwareDesc hw, double paddingThreshold)
    : nest_(std::move(nest)), hw_(std::move(hw)), th_(paddingThreshold) {}

size_t Space::firstLevel() const {
  if (hw_.family != ir::TargetFamily::Cpu) return 1;
  size_t l = 1;
  while (l + 2 < levels() && hw_.levels[l].shared) ++l;
  return l;
}

const std::vector<int64_t> &Space::parentTile(const ETIR &s, size_t l) const {
  return l <= firstLevel() ? s.tile[0] : s.tile[l - 1];
}

void Space::syncShared(ETIR &s) const {
  for (size_t l = 1; l < firstLevel(); ++l) s.tile[l] = s.tile[firstLevel()];
}

ETIR Space::initial() const {
  ETIR s;
  s.tile.assign(levels(), std::vector<int64_t>(nest_.dims.size(), 1));
  size_t first = firstLevel();
  for (size_t d = 0; d < nest_.dims.size(); ++d) {
    s.tile[0][d] = nest_.dims[d].extent;
    for (size_t l = first; l < levels(); ++l)
      s.tile[l][d] = steps(l, static_cast<int>(d), l == first ? s.tile[0][d] : s.tile[l - 1][d]).front();
  }
  syncShared(s);
  s.vthread.assign(nest_.dims.size(), 1);
  s.level = first;
  return s;
}

std::vector<int64_t> Space::steps(size_t l, int d, int64_t parent) const {
  std::vector<int64_t> out;
  // CPU code streams the reduction through the register tile (one k step
  // at a time, the accumulators staying in registers), so a register tile
  // is 1 deep in every reduction dimension: its footprint is then the
  // accumulators plus one operand row, which is what the registers hold.
  if (isRegisterLevel(l) && hw_.family != ir::TargetFamily::Cuda && nest_.dims[d].reduction) return {1};
  int64_t n = nest_.dims[d].extent;
  int64_t base = 1;
  if (!isRegisterLevel(l) && d == nest_.vectorDim())
    base = std::max<int64_t>(1, hw_.levels[l].transaction / nest_.elemBytes);
  // Doubling is checked: an explicit reduction range such as
  // `sum(k < 9223372036854775807)` makes `parent` 2^63 - 1, and s wrapped to
  // 0 and doubled forever.
  for (std::optional<int64_t> s = std::min(base, parent); s && *s <= parent; s = ir::checkedMul(*s, 2)) {
    out.push_back(*s);
    // Register-level steps stop at 64 elements. Roofline estimates of the
    // best state (M = K = N = 1000, 997; 4096 x 64 x 4096; 263 x 18 x 40):
    // a cap of 32 found 1.4-1.8x slower ones on three of the four; 128
    // the same on three and a 17% better one on 4096 x 64 x 4096, after
    // 7% more states.
    if (isRegisterLevel(l) && *s >= 64) break;
  }
  if (!isRegisterLevel(l) && out.back() != parent) out.push_back(parent);
  std::vector<int64_t> kept;
  for (int64_t s : out) // n rounded up to a multiple of s, in double: n + s - 1 can overflow
    if (kept.empty() || static_cast<double>(n / s + (n % s != 0)) * static_cast<double>(s) <=
                            static_cast<double>(n) * (1 + th_))
      kept.push_back(s);
  return kept;
}

std::vector<Action> Space::actions(const ETIR &s) const {
  std::vector<Action> out;
  size_t l = s.level;
  for (size_t d = 0; d < nest_.dims.size(); ++d) {
    auto st = steps(l, static_cast<int>(d), s.tile[0][d]);
    auto it = std::find(st.begin(), st.end(), s.tile[l][d]);
    if (it != st.end() && it + 1 != st.end()) out.push_back({Action::Kind::Tile, static_cast<int>(d)});
    if (it != st.end() && it != st.begin()) out.push_back({Action::Kind::InvTile, static_cast<int>(d)});
    if (it == st.end() && !st.empty()) out.push_back({Action::Kind::InvTile, static_cast<int>(d)});
  }
  if (l + 1 < levels()) out.push_back({Action::Kind::Cache});
  if (hw_.levels[l].banks > 0)
    for (size_t d = 0; d < nest_.dims.size(); ++d)
      for (int v : {2, 4, 8})
        if (s.vthread[d] != v && s.tile[l][d] % v == 0) out.push_back({Action::Kind::VThread, static_cast<int>(d), v});
  return out;
}

ETIR Space::apply(const ETIR &s, const Action &a) const {
  ETIR n = s;
  size_t l = s.level;
  if (a.kind == Action::Kind::Cache) {
    n.level = l + 1;
    for (size_t d = 0; d < nest_.dims.size(); ++d) n.tile[l + 1][d] = steps(l + 1, static_cast<int>(d), s.tile[l][d]).front();
    return n;
  }
  if (a.kind == Action::Kind::VThread) {
    n.vthread[a.dim] = a.factor;
    return n;
  }
  auto st = steps(l, a.dim, s.tile[0][a.dim]);
  auto it = std::lower_bound(st.begin(), st.end(), s.tile[l][a.dim]);
  if (a.kind == Action::Kind::Tile) n.tile[l][a.dim] = *(it + 1);
  else n.tile[l][a.dim] = it == st.begin() ? st.front() : *(it - 1);
  // Tiles nest: a slower level holds at least the tile of a faster one (a
  // grown tile grows its parents), a faster level never more than its parent.
  for (size_t k = l - 1; k >= 1; --k) n.tile[k][a.dim] = std::max(n.tile[k][a.dim], n.tile[k + 1][a.dim]);
  for (size_t k = l + 1; k < levels(); ++k) n.tile[k][a.dim] = std::min(n.tile[k][a.dim], n.tile[k - 1][a.dim]);
  syncShared(n);
  return n;
}

int64_t Space::gpuThreads(const ETIR &s) const {
  size_t r = levels() - 1;
  int64_t t = 1;
  for (size_t d = 0; d < nest_.dims.size(); ++d)
    if (!nest_.dims[d].reduction) { // saturates: too many threads either way
      int64_t a = s.tile[r - 1][d], b = s.tile[r][d];
      t = ir::checkedMul(t, a / b + (a % b != 0)).value_or(std::numeric_limits<int64_t>::max());
    }
  return t;
}

std::string Space::capacityViolation(const ETIR &s) const {
  size_t l = s.level;
  auto num = [](double v) { return static_cast<int64_t>(v); }; // whole bytes and registers
  for (size_t k = 1; k <= l; ++k) {
    if (hw_.family == ir::TargetFamily::Cuda && isRegisterLevel(k)) break;
    double bytes = nest_.footprintBytes(s.tile[k]);
    if (bytes > static_cast<double>(hw_.unitCapacity(k)))
      return fmt::format("footprint {} B exceeds {} capacity {} B", num(bytes), hw_.levels[k].name,
                         num(hw_.unitCapacity(k)));
  }
  if (hw_.family != ir::TargetFamily::Cuda || !isRegisterLevel(l)) return "";
  double bytes = nest_.footprintBytes(s.tile[l]);
  int64_t threads = gpuThreads(s);
  double regs = std::ceil(bytes / 4);
  if (threads > hw_.maxThreadsPerBlock)
    return fmt::format("{} threads per block exceed {}", threads, hw_.maxThreadsPerBlock);
  if (regs > hw_.maxRegistersPerThread)
    return fmt::format("{} registers per thread exceed {}", num(regs), hw_.maxRegistersPerThread);
  if (regs * threads > hw_.registersPerUnit)
    return fmt::format("{} registers per block exceed {}", num(regs * threads), hw_.registersPerUnit);
  return "";
}

double Space::benefit(const ETIR &s, const Action &a) const {
  ETIR n = apply(s, a);
  if (!capacityViolation(n).empty()) return 0;
  size_t l = s.level;
  switch (a.kind) {
  case Action::Kind::Tile:
  case Action::Kind::InvTile:
    return tilingBenefit(nest_.trafficBytes(s.tile[l], parentTile(s, l)), nest_.footprintBytes(s.tile[l]),
                         nest_.trafficBytes(n.tile[l], parentTile(n, l)), nest_.footprintBytes(n.tile[l]));
  case Action::Kind::Cache: {
    const MemLevel &lo = hw_.levels[l], &hi = hw_.levels[l + 1];
    // S: the bytes the two levels exchange over the whole nest (the tile
    // traffic into the faster level), so small tiles do not make caching
    // look attractive through latency alone.
    return cachingBenefit(lo.latency, hw_.unitBandwidth(l), hi.latency, hw_.unitBandwidth(l + 1),
                          nest_.trafficBytes(s.tile[l], parentTile(s, l)));
  }
  case Action::Kind::VThread: {
    const MemLevel &m = hw_.levels[l];
    int64_t bankElems = std::max<int64_t>(1, static_cast<int64_t>(m.banks) * m.bankWidth / nest_.elemBytes);
    return vthreadBenefit(s.tile[l][a.dim], bankElems, a.factor) /
           vthreadBenefit(s.tile[l][a.dim], bankElems, s.vthread[a.dim]);
  }
  }
  return 0;
}

} // namespace tk::construct
