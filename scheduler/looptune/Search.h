// LoopTune's search baselines over the cursor action space, scoring states
// by measured GFLOP/s: greedy with lookahead, beam search depth-first and
// breadth-first, random search. Each stops at its time budget and returns
// the best state it measured with the actions that reach it.
#pragma once
#include "scheduler/looptune/Actions.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tk::looptune {

// Memoized measurement: GFLOP/s of a nest, by its loops (the cursor does
// not change the code).
class Evaluator {
public:
  explicit Evaluator(std::function<double(const TuneNest &)> gflops) : gflops_(std::move(gflops)) {}
  double operator()(const TuneNest &n);
  int measured() const { return static_cast<int>(cache_.size()); }

private:
  std::function<double(const TuneNest &)> gflops_;
  std::map<std::string, double> cache_;
};

// The nest's text without the cursor: the Evaluator's cache key.
std::string loopsKey(const TuneNest &n);

struct SearchResult {
  TuneNest best;
  double gflops = 0;           // of best
  double startGflops = 0;      // of the start nest
  std::vector<Action> actions; // from the start nest to best
  double seconds = 0;          // wall time spent
};

struct SearchLimits {
  int vectorLanes = 8;
  double budgetSec = 1.0; // wall-clock budget
  int maxDepth = 10;      // actions per episode / search depth
  unsigned seed = 1;      // random search
};

// Greedy: from the current state, measure every state reachable with up to
// `lookahead` legal actions, move by the first action of the best sequence
// (states already visited are skipped); stop when the best is worse than
// the current state, after maxDepth moves, or at the budget.
SearchResult greedySearch(const TuneNest &start, int lookahead, Evaluator &eval, const SearchLimits &lim);

// Beam search of width w: every expanded state's legal successors are
// measured and the best w (not yet visited) are expanded next, to depth
// maxDepth; depth-first (recursing into each in order) or breadth-first
// (level by level).
SearchResult beamSearch(const TuneNest &start, int width, bool depthFirst, Evaluator &eval,
                        const SearchLimits &lim);

// Random episodes of maxDepth uniformly drawn legal actions from the start.
SearchResult randomSearch(const TuneNest &start, Evaluator &eval, const SearchLimits &lim);

// The legal actions of `n`.
std::vector<Action> legalActions(const TuneNest &n, int vectorLanes);

} // namespace tk::looptune
