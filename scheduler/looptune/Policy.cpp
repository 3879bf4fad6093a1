#include "scheduler/looptune/Policy.h"

#include "scheduler/looptune/StateVector.h"

#include <fmt/format.h>

#include <set>

namespace tk::looptune {

PolicyRollout rolloutPolicy(const QNetwork &q, const TuneNest &start, int vectorLanes, int steps) {
  if (q.widths().empty() || q.widths().front() != kStateSize || q.widths().back() != kNumActions)
    throw InternalError(
        fmt::format("looptune: the Q-network does not map {} inputs to {} actions", kStateSize, kNumActions));
  PolicyRollout r{{start}, {}};
  std::set<std::string> visited{printNest(start)};
  for (int s = 0; s < steps; ++s) {
    const TuneNest &cur = r.states.back();
    std::vector<float> qv = q.forward(stateVector(cur));
    int best = -1;
    for (int a = 0; a < kNumActions; ++a) {
      if (best >= 0 && qv[a] <= qv[best]) continue;
      if (!applies(cur, static_cast<Action>(a), vectorLanes, nullptr)) continue;
      if (visited.count(printNest(applyAction(cur, static_cast<Action>(a), vectorLanes)))) continue;
      best = a;
    }
    if (best < 0) break;
    r.actions.push_back(static_cast<Action>(best));
    r.states.push_back(applyAction(cur, static_cast<Action>(best), vectorLanes));
    visited.insert(printNest(r.states.back()));
  }
  return r;
}

} // namespace tk::looptune
