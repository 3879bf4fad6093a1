#include "scheduler/construct/Baselines.h"

#include <algorithm>
#include <cmath>

namespace tk::construct {

Ranked rollerConstruct(const Space &space) {
  ETIR s = space.initial();
  while (true) {
    const Action *bestA = nullptr;
    double bestB = 1;
    std::vector<Action> acts = space.actions(s);
    for (const Action &a : acts) {
      if (a.kind != Action::Kind::Tile) continue;
      double b = space.benefit(s, a);
      if (b > bestB) bestB = b, bestA = &a;
    }
    if (bestA) {
      s = space.apply(s, *bestA);
      continue;
    }
    if (s.level + 1 >= space.levels()) break;
    ETIR next = space.apply(s, {Action::Kind::Cache});
    if (!space.capacityViolation(next).empty()) break;
    s = next;
  }
  return {s, estimate(space, s)};
}

namespace {

struct Enumerator {
  const Space &space;
  size_t limit, keep;
  ExhaustiveResult res;
  ETIR cur;

  void level(size_t l) {
    if (!res.complete) return;
    if (l == space.levels()) {
      cur.level = space.levels() - 1;
      space.syncShared(cur);
      if (!space.capacityViolation(cur).empty()) return;
      Estimate e = estimate(space, cur);
      auto before = [](const Ranked &a, const Ranked &b) {
        return a.est.seconds != b.est.seconds ? a.est.seconds < b.est.seconds : a.state < b.state;
      };
      Ranked r{cur, e};
      if (res.top.size() < keep || before(r, res.top.back())) {
        res.top.insert(std::upper_bound(res.top.begin(), res.top.end(), r, before), r);
        if (res.top.size() > keep) res.top.pop_back();
      }
      if (++res.states >= limit) res.complete = false;
      return;
    }
    dim(l, 0);
  }

  void dim(size_t l, size_t d) {
    if (d == space.nest().dims.size()) {
      // Prune: a level over capacity stays over with larger faster tiles.
      cur.level = l;
      bool gpuRegs = space.hw().family == ir::TargetFamily::Cuda && space.isRegisterLevel(l);
      if (!gpuRegs && space.nest().footprintBytes(cur.tile[l]) > static_cast<double>(space.hw().unitCapacity(l)))
        return;
      level(l + 1);
      return;
    }
    // The first level's tiles range over the extents (shared levels above
    // it copy them, Space::syncShared).
    int64_t parent = l == space.firstLevel() ? cur.tile[0][d] : cur.tile[l - 1][d];
    for (int64_t s : space.steps(l, static_cast<int>(d), parent)) {
      if (s > parent) break;
      cur.tile[l][d] = s;
      dim(l, d + 1);
      if (!res.complete) return;
    }
  }
};

} // namespace

ExhaustiveResult exhaustiveBest(const Space &space, size_t limit, size_t keep) {
  Enumerator e{space, limit, std::max<size_t>(keep, 1), {}, space.initial()};
  e.level(space.firstLevel());
  if (!e.res.top.empty()) e.res.best = e.res.top.front();
  return e.res;
}

} // namespace tk::construct
