#include "scheduler/costmodel/Metrics.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

namespace tk::costmodel {
namespace {

// Candidate indices by descending score (stable: ties keep their order).
std::vector<size_t> byScore(const RankedTask &t) {
  std::vector<size_t> order(t.score.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return t.score[a] > t.score[b]; });
  return order;
}

double best(const RankedTask &t) { return *std::min_element(t.latency.begin(), t.latency.end()); }

} // namespace

double topKScore(const std::vector<RankedTask> &tasks, int k) {
  double num = 0, den = 0;
  for (const RankedTask &t : tasks) {
    if (t.latency.empty()) continue;
    std::vector<size_t> order = byScore(t);
    double chosen = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < order.size() && i < size_t(std::max(k, 1)); ++i) chosen = std::min(chosen, t.latency[order[i]]);
    double b = best(t);
    num += 1;             // w best = 1
    den += chosen / b;    // w chosen
  }
  return den > 0 ? num / den : 0;
}

double measurementsToReach(const std::vector<RankedTask> &tasks, double fraction) {
  double total = 0;
  size_t n = 0;
  for (const RankedTask &t : tasks) {
    if (t.latency.empty()) continue;
    double goal = best(t) / fraction;
    std::vector<size_t> order = byScore(t);
    size_t m = 0;
    while (m < order.size() && t.latency[order[m]] > goal) ++m;
    total += double(m + 1);
    ++n;
  }
  return n ? total / double(n) : 0;
}

std::vector<RankedTask> randomScores(const std::vector<RankedTask> &tasks, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<RankedTask> out = tasks;
  for (RankedTask &t : out)
    for (double &s : t.score) s = u(rng);
  return out;
}

} // namespace tk::costmodel
