// tk_looptune_bench: the LoopTune comparison. On generated test nests
// (other seeds than training), the learned policy against each search
// baseline with the same time budget, and the time each takes to tune.
//   tk_looptune_bench [--nests=N] [--budget=SEC] [--policy=FILE] [--seed=N]
// Prints one row per nest (GFLOP/s) and, per search, the geometric-mean
// speedup over the initial nest and the policy's ratio to it.
#include "LoopTuneNests.h"

#include "frontend/driver/Tune.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

using namespace tk;
using namespace tk::looptune;

int main(int argc, char **argv) {
  int nests = 12;
  double budget = 1.0;
  unsigned seed = 1000;
  std::string policy = std::string(TK_LOOPTUNE_STDLIB) + "/looptune/policy.qnet";
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--nests=", 8)) nests = std::atoi(argv[i] + 8);
    else if (!std::strncmp(argv[i], "--budget=", 9)) budget = std::atof(argv[i] + 9);
    else if (!std::strncmp(argv[i], "--policy=", 9)) policy = argv[i] + 9;
    else if (!std::strncmp(argv[i], "--seed=", 7)) seed = static_cast<unsigned>(std::atoi(argv[i] + 7));
    else {
      fmt::print(stderr, "usage: tk_looptune_bench [--nests=N] [--budget=SEC] [--policy=FILE] [--seed=N]\n");
      return 2;
    }
  }
  SourceManager sm;
  DiagEngine diags(sm);
  std::optional<QNetwork> q = loadQNetwork(policy, sm, diags);
  diags.flush();
  if (!q) return 1;
  std::string err;
  CpuTarget target = *resolveCpuTarget("host", &err);
  const char *searches[] = {"policy", "greedy1", "greedy2", "beam2dfs", "beam4dfs", "beam2bfs", "beam4bfs", "random"};
  std::map<std::string, double> logGain, logTime, maxTime;
  std::mt19937 rng(seed);
  fmt::print("{:<34} {:>8}", "nest (GFLOP/s)", "start");
  for (const char *s : searches) fmt::print(" {:>9}", s);
  fmt::print("\n");
  for (int id = 0; id < nests; ++id) {
    std::string src = randomNestSource(rng, id);
    ir::Module m = buildNestModule(src);
    TuneNest start = *extractTuneNest(m.exports[0].op, &err);
    std::string shape;
    for (const NestVar &v : start.vars) shape += fmt::format("{}{}", shape.empty() ? "" : "x", v.extent);
    const char *kind = src.find("sum(c, r, s)") != std::string::npos ? "conv"
                       : src.find("sum(j)") != std::string::npos     ? "rowsum"
                                                                     : "matmul";
    fmt::print("{:<6} {:<27}", kind, shape);
    double startG = 0;
    for (const char *s : searches) {
      Evaluator eval(jitGflops(target));
      SearchLimits lim;
      lim.vectorLanes = vectorLanes(target.vectorBits);
      lim.budgetSec = budget;
      SearchResult r = runSearch(s, start, eval, lim, &*q);
      if (!startG) {
        startG = r.startGflops;
        fmt::print(" {:8.2f}", startG);
      }
      fmt::print(" {:9.2f}", r.gflops);
      std::fflush(stdout);
      logGain[s] += std::log(r.gflops / r.startGflops);
      logTime[s] += std::log(r.seconds);
      maxTime[s] = std::max(maxTime[s], r.seconds);
    }
    fmt::print("\n");
  }
  fmt::print("\n{:<10} {:>14} {:>16} {:>14} {:>12}\n", "search", "speedup(geo)", "policy/search", "time(geo) s",
             "max time s");
  for (const char *s : searches)
    fmt::print("{:<10} {:13.2f}x {:15.2f}x {:14.3f} {:12.3f}\n", s, std::exp(logGain[s] / nests),
               std::exp((logGain["policy"] - logGain[s]) / nests), std::exp(logTime[s] / nests), maxTime[s]);
  return 0;
}
