// Metrics: how well a ranking of a task's candidates picks fast ones —
// TLP's top-k score and the measurements a tuner guided by the ranking
// needs — for the learned model, the roofline estimate and random order
// alike (docs/costmodel.md, "Evaluation").
#pragma once
#include <cstdint>
#include <vector>

namespace tk::costmodel {

// One task: the measured latency of each candidate and a ranking's score
// of it (higher = predicted faster).
struct RankedTask {
  std::vector<double> latency;
  std::vector<double> score;
};

// TLP's top-k score, sum_t w_t best_t / sum_t w_t chosen_t, where chosen_t
// is the best measured latency among the k candidates the ranking puts
// first and w_t = 1 / best_t, so that every task weighs the same whatever
// its size: the harmonic mean over tasks of best / chosen. 1 = the
// ranking's top k always holds the fastest candidate. Ties in score keep
// candidate order.
double topKScore(const std::vector<RankedTask> &tasks, int k);

// Mean over tasks of how many candidates are measured, in the ranking's
// order, until one reaches `fraction` of the best speed (latency <=
// best / fraction): a tuner's cost when it measures the ranking's best
// first.
double measurementsToReach(const std::vector<RankedTask> &tasks, double fraction);

// The tasks with scores drawn at random (uniform, from `seed`): the
// baseline the rankings are compared with (average several seeds for the
// expected value of a random ranking).
std::vector<RankedTask> randomScores(const std::vector<RankedTask> &tasks, uint64_t seed);

} // namespace tk::costmodel
