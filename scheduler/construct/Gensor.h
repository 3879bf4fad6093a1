// Gensor: construction of a tiling by a Markov traversal of the ETIR space
// (docs/construct.md). From the untiled state, each step rates every action
// by its benefit formula (0 when the result does not fit), boosts `cache`
// as the temperature falls, and picks one by roulette; states join
// top_results with a probability that falls with the temperature. A
// value-iteration (Bellman) pass over the visited states adds the states
// with the best discounted payoff; the roofline estimate ranks the result.
#pragma once
#include "scheduler/construct/Roofline.h"

#include <cstdint>
#include <iosfwd>

namespace tk::construct {

struct GensorOptions {
  uint64_t seed = 0x7e45;       // same seed, same input -> same result
  double temperature = 0x1p50;  // halved every step until below threshold (100 steps)
  double threshold = 0x1p-50;
  bool vthread = true;          // false: the ablation without setVThread
  size_t valueIterationPicks = 4;
  size_t chains = 32;            // independent annealing chains (seeds derived from `seed`)
  std::ostream *trace = nullptr; // the path, for --construct-trace
};

struct Ranked {
  ETIR state;
  Estimate est;
};

struct GensorResult {
  std::vector<Ranked> ranked; // candidates, best (lowest estimate) first
  size_t steps = 0;
  size_t visited = 0;
};

GensorResult runGensor(const Space &space, const GensorOptions &opts);

// The annealing schedule of the paper, exposed for tests:
// cache-action boost 3 / (1 + e^(-(ln 5 / 10)(t - 10))) at step t, and the
// probability that a new state joins top_results at temperature T,
// 1 - 1 / (1 + e^(-0.5 (-ln T - 10))).
double cacheBoost(size_t step);
double topResultProbability(double temperature);

// Deterministic uniform [0, 1) from a 64-bit state (splitmix64): the
// sequence is the same on every platform and standard library.
class Rng {
public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  double uniform();

private:
  uint64_t s_;
};

} // namespace tk::construct
