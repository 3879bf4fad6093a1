#include "scheduler/looptune/Search.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <set>

namespace tk::looptune {
namespace {

using Clock = std::chrono::steady_clock;

// A state reached from the start, with its path.
struct Node {
  TuneNest nest;
  std::vector<Action> path;
  double gflops = 0;
};

// Shared bookkeeping: the time budget and the best state measured so far.
class Run {
public:
  Run(const TuneNest &start, Evaluator &eval, const SearchLimits &lim) : eval_(eval), lim_(lim), t0_(Clock::now()) {
    start_.nest = start;
    start_.gflops = result_.startGflops = eval_(start);
    best_ = start_;
  }
  bool expired() const { return elapsed() >= lim_.budgetSec; }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }
  Node measure(const Node &from, Action a) {
    Node n{applyAction(from.nest, a, lim_.vectorLanes), from.path, 0};
    n.path.push_back(a);
    n.gflops = eval_(n.nest);
    if (n.gflops > best_.gflops) best_ = n;
    return n;
  }
  // Successors of `from` not in `visited`, best first.
  std::vector<Node> successors(const Node &from, const std::set<std::string> &visited) {
    std::vector<Node> out;
    for (Action a : legalActions(from.nest, lim_.vectorLanes)) {
      if (expired()) break;
      TuneNest next = applyAction(from.nest, a, lim_.vectorLanes);
      if (visited.count(printNest(next))) continue;
      out.push_back(measure(from, a));
    }
    std::stable_sort(out.begin(), out.end(), [](const Node &x, const Node &y) { return x.gflops > y.gflops; });
    return out;
  }
  SearchResult finish() {
    result_.best = best_.nest;
    result_.gflops = best_.gflops;
    result_.actions = best_.path;
    result_.seconds = elapsed();
    return result_;
  }
  const SearchLimits &limits() const { return lim_; }
  const Node &root() const { return start_; }

private:
  Evaluator &eval_;
  SearchLimits lim_;
  Clock::time_point t0_;
  Node start_, best_;
  SearchResult result_;
};

// GFLOP/s of the best state reachable from `from` within `depth` actions
// (excluding visited states), stored in *out; -1 when there is none.
double lookaheadBest(Run &run, const Node &from, int depth, const std::set<std::string> &visited, Node *out) {
  double best = -1;
  for (const Node &n : run.successors(from, visited)) {
    if (n.gflops > best) {
      best = n.gflops;
      *out = n;
    }
    if (depth > 1 && !run.expired()) {
      Node deeper;
      double d = lookaheadBest(run, n, depth - 1, visited, &deeper);
      if (d > best) {
        best = d;
        *out = deeper;
      }
    }
  }
  return best;
}

void beamDfs(Run &run, const Node &n, int width, int depth, std::set<std::string> &visited) {
  if (depth == 0 || run.expired()) return;
  std::vector<Node> next = run.successors(n, visited);
  if (next.size() > static_cast<size_t>(width)) next.resize(width);
  for (const Node &c : next) visited.insert(printNest(c.nest));
  for (const Node &c : next) beamDfs(run, c, width, depth - 1, visited);
}

} // namespace

double Evaluator::operator()(const TuneNest &n) {
  std::string key = loopsKey(n);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  double g = gflops_(n);
  cache_.emplace(key, g);
  return g;
}

std::string loopsKey(const TuneNest &n) {
  TuneNest c = n;
  c.cursor = -1;
  return printNest(c);
}

std::vector<Action> legalActions(const TuneNest &n, int vectorLanes) {
  std::vector<Action> out;
  for (int a = 0; a < kNumActions; ++a)
    if (applies(n, static_cast<Action>(a), vectorLanes, nullptr)) out.push_back(static_cast<Action>(a));
  return out;
}

SearchResult greedySearch(const TuneNest &start, int lookahead, Evaluator &eval, const SearchLimits &lim) {
  Run run(start, eval, lim);
  Node cur = run.root();
  std::set<std::string> visited{printNest(start)};
  for (int step = 0; step < lim.maxDepth && !run.expired(); ++step) {
    Node target;
    if (lookaheadBest(run, cur, lookahead, visited, &target) < cur.gflops || target.path.empty()) break;
    // Move by the first action of the best sequence only.
    Node next{applyAction(cur.nest, target.path[cur.path.size()], lim.vectorLanes), cur.path, 0};
    next.path.push_back(target.path[cur.path.size()]);
    next.gflops = eval(next.nest);
    visited.insert(printNest(next.nest));
    cur = next;
  }
  return run.finish();
}

SearchResult beamSearch(const TuneNest &start, int width, bool depthFirst, Evaluator &eval,
                        const SearchLimits &lim) {
  Run run(start, eval, lim);
  std::set<std::string> visited{printNest(start)};
  if (depthFirst) {
    beamDfs(run, run.root(), width, lim.maxDepth, visited);
    return run.finish();
  }
  std::vector<Node> level{run.root()};
  for (int d = 0; d < lim.maxDepth && !level.empty() && !run.expired(); ++d) {
    std::vector<Node> nextLevel;
    for (const Node &n : level) {
      std::vector<Node> next = run.successors(n, visited);
      if (next.size() > static_cast<size_t>(width)) next.resize(width);
      for (const Node &c : next) visited.insert(printNest(c.nest));
      nextLevel.insert(nextLevel.end(), next.begin(), next.end());
      if (run.expired()) break;
    }
    level = std::move(nextLevel);
  }
  return run.finish();
}

SearchResult randomSearch(const TuneNest &start, Evaluator &eval, const SearchLimits &lim) {
  Run run(start, eval, lim);
  std::mt19937 rng(lim.seed);
  while (!run.expired()) {
    Node n = run.root();
    for (int d = 0; d < lim.maxDepth && !run.expired(); ++d) {
      std::vector<Action> legal = legalActions(n.nest, lim.vectorLanes);
      if (legal.empty()) break;
      n = run.measure(n, legal[std::uniform_int_distribution<size_t>(0, legal.size() - 1)(rng)]);
    }
  }
  return run.finish();
}

} // namespace tk::looptune
