#include "scheduler/construct/Baselines.h"

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
  size_t limit;
  ExhaustiveResult res;
  ETIR cur;

  void level(size_t l) {
    if (!res.complete) return;
    if (l == space.levels()) {
      cur.level = space.levels() - 1;
      if (!space.capacityViolation(cur).empty()) return;
      Estimate e = estimate(space, cur);
      if (res.states == 0 || e.seconds < res.best.est.seconds) res.best = {cur, e};
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
    for (int64_t s : space.steps(l, static_cast<int>(d), cur.tile[l - 1][d])) {
      if (s > cur.tile[l - 1][d]) break;
      cur.tile[l][d] = s;
      dim(l, d + 1);
      if (!res.complete) return;
    }
  }
};

} // namespace

ExhaustiveResult exhaustiveBest(const Space &space, size_t limit) {
  Enumerator e{space, limit, {}, space.initial()};
  e.level(1);
  return e.res;
}

} // namespace tk::construct
