// tk_looptune_train: trains LoopTune's Q-network by DQN (replay buffer,
// target network, epsilon-greedy episodes of 10 actions) on generated nests
// (LoopTuneNests.h), rewards (GFLOPS' - GFLOPS) / measured peak, measuring
// with the JIT. Writes the weights file tkc loads (docs/looptune.md).
//   tk_looptune_train [--minutes=M] [--out=FILE] [--seed=N]
#include "LoopTuneNests.h"

#include "frontend/driver/JitMeasure.h"
#include "frontend/driver/Tune.h"
#include "scheduler/looptune/Policy.h"
#include "scheduler/looptune/StateVector.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

using namespace tk;
using namespace tk::looptune;

namespace {

struct Transition {
  std::vector<float> state, next;
  int action = 0;
  float reward = 0;
  std::vector<Action> nextLegal;
};

struct Problem {
  TuneNest nest;
  std::unique_ptr<Evaluator> eval;
};

} // namespace

int main(int argc, char **argv) {
  double minutes = 5;
  std::string out = "policy.qnet";
  unsigned seed = 1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--minutes=", 10)) minutes = std::atof(argv[i] + 10);
    else if (!std::strncmp(argv[i], "--out=", 6)) out = argv[i] + 6;
    else if (!std::strncmp(argv[i], "--seed=", 7)) seed = static_cast<unsigned>(std::atoi(argv[i] + 7));
    else {
      fmt::print(stderr, "usage: tk_looptune_train [--minutes=M] [--out=FILE] [--seed=N]\n");
      return 2;
    }
  }
  std::string err;
  CpuTarget target = *resolveCpuTarget("host", &err);
  int lanes = vectorLanes(target.vectorBits);
  double peak = measurePeakGflops(target);
  fmt::print("peak {:.1f} GFLOP/s (one core), {} lanes\n", peak, lanes);
  std::mt19937 rng(seed);
  std::vector<Problem> pool;
  for (int id = 0; id < 48; ++id) {
    ir::Module m = buildNestModule(randomNestSource(rng, id));
    pool.push_back({*extractTuneNest(m.exports[0].op, &err), std::make_unique<Evaluator>(jitGflops(target))});
  }
  QNetwork q({kStateSize, 128, 128, kNumActions}, rng), targetNet = q;
  std::vector<Transition> replay;
  const size_t capacity = 20000;
  size_t next = 0;
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  int episodes = 0, updates = 0;
  double recentReward = 0;
  while (elapsed() < minutes * 60) {
    Problem &p = pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)];
    double eps = std::max(0.1, 1.0 - elapsed() / (minutes * 60 * 0.6));
    TuneNest s = p.nest;
    double g = (*p.eval)(s), episodeReward = 0;
    for (int step = 0; step < 10; ++step) {
      std::vector<Action> legal = legalActions(s, lanes);
      if (legal.empty()) break;
      Action a = legal[0];
      std::vector<float> sv = stateVector(s);
      if (std::uniform_real_distribution<double>(0, 1)(rng) < eps) {
        a = legal[std::uniform_int_distribution<size_t>(0, legal.size() - 1)(rng)];
      } else {
        std::vector<float> qv = q.forward(sv);
        for (Action b : legal)
          if (qv[static_cast<int>(b)] > qv[static_cast<int>(a)]) a = b;
      }
      TuneNest s2 = applyAction(s, a, lanes);
      double g2 = (*p.eval)(s2);
      Transition t{sv, stateVector(s2), static_cast<int>(a), static_cast<float>((g2 - g) / peak),
                   legalActions(s2, lanes)};
      episodeReward += t.reward;
      if (replay.size() < capacity) replay.push_back(std::move(t));
      else replay[next++ % capacity] = std::move(t);
      s = s2;
      g = g2;
      if (replay.size() < 64) continue;
      std::vector<std::vector<float>> xs;
      std::vector<int> acts;
      std::vector<float> ys;
      for (int b = 0; b < 32; ++b) {
        const Transition &tr = replay[std::uniform_int_distribution<size_t>(0, replay.size() - 1)(rng)];
        std::vector<float> qn = targetNet.forward(tr.next);
        float best = 0;
        for (size_t i = 0; i < tr.nextLegal.size(); ++i)
          best = i == 0 ? qn[static_cast<int>(tr.nextLegal[i])] : std::max(best, qn[static_cast<int>(tr.nextLegal[i])]);
        xs.push_back(tr.state);
        acts.push_back(tr.action);
        ys.push_back(tr.reward + 0.9f * best);
      }
      q.train(xs, acts, ys, 1e-3f);
      if (++updates % 200 == 0) targetNet = q;
    }
    recentReward = episodes ? 0.95 * recentReward + 0.05 * episodeReward : episodeReward;
    if (++episodes % 50 == 0)
      fmt::print("{:6.0f} s  episodes {}  updates {}  eps {:.2f}  mean episode reward {:.4f} (x peak)\n", elapsed(),
                 episodes, updates, eps, recentReward);
    std::fflush(stdout);
  }
  std::ofstream(out) << q.serialize();
  // Held-out check: the policy (measuring its 10 visited states) vs the start.
  double gain = 0;
  int n = 0;
  for (int id = 100; id < 116; ++id) {
    ir::Module m = buildNestModule(randomNestSource(rng, id));
    auto nest = extractTuneNest(m.exports[0].op, &err);
    Evaluator eval(jitGflops(target));
    SearchLimits lim;
    lim.vectorLanes = lanes;
    SearchResult r = runSearch("policy", *nest, eval, lim, &q);
    gain += r.gflops / r.startGflops;
    ++n;
  }
  fmt::print("trained {:.0f} s, {} episodes, {} updates; held-out mean speedup over the initial nest {:.2f}x; "
             "wrote {}\n",
             elapsed(), episodes, updates, gain / n, out);
  return 0;
}
