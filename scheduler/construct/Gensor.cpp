#include "scheduler/construct/Gensor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <set>

namespace tk::construct {

double Rng::uniform() {
  uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1p-53;
}

double cacheBoost(size_t step) {
  return 3.0 / (1.0 + std::exp(-(std::log(5.0) / 10.0) * (static_cast<double>(step) - 10.0)));
}

double topResultProbability(double temperature) {
  return 1.0 - 1.0 / (1.0 + std::exp(-0.5 * (-std::log(temperature) - 10.0)));
}

namespace {

struct Choice {
  Action action;
  double benefit = 0, prob = 0;
};

// Actions of `s` with benefits and normalized probabilities (the cache
// action boosted for step t).
std::vector<Choice> policy(const Space &space, const ETIR &s, size_t t, bool vthread) {
  std::vector<Choice> out;
  double total = 0;
  for (const Action &a : space.actions(s)) {
    if (a.kind == Action::Kind::VThread && !vthread) continue;
    double b = space.benefit(s, a);
    double w = a.kind == Action::Kind::Cache ? b * cacheBoost(t) : b;
    out.push_back({a, b, w});
    total += w;
  }
  for (Choice &c : out) c.prob = total > 0 ? c.prob / total : 0;
  return out;
}

} // namespace

namespace {

struct Walk {
  std::vector<ETIR> top;
  std::set<ETIR> visited;
  std::map<ETIR, std::vector<std::pair<double, ETIR>>> edges; // for value iteration
  size_t steps = 0;
};

// One annealing chain from the untiled state (Algorithm 1 of the paper).
void walk(const Space &space, const GensorOptions &opts, uint64_t seed, std::ostream *tr, Walk &w) {
  Rng rng(seed);
  ETIR s = space.initial();
  w.visited.insert(s);
  size_t t = 0;
  for (double temp = opts.temperature; temp > opts.threshold; temp /= 2, ++t) {
    std::vector<Choice> choices = policy(space, s, t, opts.vthread);
    if (tr) {
      *tr << fmt::format("step {}  state {}\n", t, s.str());
      for (const Choice &c : choices)
        *tr << fmt::format("    {:<22} benefit {:<10.4g} p {:.4g}\n", c.action.str(space.nest()), c.benefit, c.prob);
    }
    for (const Choice &c : choices)
      if (c.prob > 0) w.edges[s].push_back({c.prob, space.apply(s, c.action)});
    double r = rng.uniform(), acc = 0;
    const Choice *pick = nullptr;
    for (const Choice &c : choices) {
      if (c.prob <= 0) continue;
      acc += c.prob;
      pick = &c;
      if (r < acc) break;
    }
    if (!pick) {
      if (tr) *tr << "  no action fits: stop\n";
      break;
    }
    s = space.apply(s, pick->action);
    w.visited.insert(s);
    bool keep = rng.uniform() < topResultProbability(temp);
    if (keep) w.top.push_back(s);
    if (tr) *tr << "  -> " << pick->action.str(space.nest()) << (keep ? "  (kept in top_results)" : "") << "\n";
  }
  w.steps += t;
  w.top.push_back(s);
  if (tr) *tr << "end of chain: " << s.str() << "\n";
}

} // namespace

GensorResult runGensor(const Space &space, const GensorOptions &opts) {
  GensorResult res;
  Walk w;
  for (size_t c = 0; c < std::max<size_t>(1, opts.chains); ++c)
    walk(space, opts, opts.seed + 0x9e3779b97f4a7c15ULL * c, c == 0 ? opts.trace : nullptr, w);
  std::ostream *tr = opts.trace;
  if (tr && opts.chains > 1) *tr << "(" << opts.chains - 1 << " more chains with derived seeds, not traced)\n";
  res.steps = w.steps;
  res.visited = w.visited.size();
  std::vector<ETIR> &top = w.top;
  const std::set<ETIR> &visited = w.visited;
  auto &edges = w.edges;

  // Value iteration over the visited states: V(i) = max(R(i), max_a pi(a|i) V(j)),
  // R = best estimate / own estimate (1 for the best state).
  std::map<ETIR, double> reward;
  double best = INFINITY;
  for (const ETIR &v : visited) best = std::min(best, reward[v] = estimate(space, v).seconds);
  std::map<ETIR, double> value;
  for (auto &[v, secs] : reward) value[v] = reward[v] = best / secs;
  for (int it = 0; it < 100; ++it) {
    bool changed = false;
    for (auto &[v, val] : value) {
      double nv = reward[v];
      for (const auto &[p, j] : edges[v])
        if (auto f = value.find(j); f != value.end()) nv = std::max(nv, p * f->second);
      if (nv > val + 1e-12) val = nv, changed = true;
    }
    if (!changed) break;
  }
  std::vector<std::pair<double, ETIR>> byValue;
  for (const auto &[v, val] : value) byValue.push_back({-val, v});
  std::sort(byValue.begin(), byValue.end());
  for (size_t i = 0; i < std::min(opts.valueIterationPicks, byValue.size()); ++i) top.push_back(byValue[i].second);

  std::sort(top.begin(), top.end());
  top.erase(std::unique(top.begin(), top.end()), top.end());
  for (const ETIR &c : top)
    if (space.capacityViolation(c).empty()) res.ranked.push_back({c, estimate(space, c)});
  std::stable_sort(res.ranked.begin(), res.ranked.end(),
                   [](const Ranked &a, const Ranked &b) { return a.est.seconds < b.est.seconds; });
  if (tr) {
    *tr << fmt::format("top_results ranked by the roofline estimate ({} of {} visited states):\n", res.ranked.size(),
                       res.visited);
    for (size_t i = 0; i < std::min<size_t>(5, res.ranked.size()); ++i)
      *tr << fmt::format("  {}. {}  est {:.4g} ms\n", i + 1, res.ranked[i].state.str(),
                         res.ranked[i].est.seconds * 1e3);
  }
  return res;
}

} // namespace tk::construct
