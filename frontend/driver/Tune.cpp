#include "frontend/driver/Tune.h"

#include "frontend/ResolveImports.h"
#include "frontend/driver/JitMeasure.h"
#include "frontend/driver/MeasureCandidates.h"
#include "scheduler/looptune/LowerTunedNest.h"
#include "scheduler/looptune/Policy.h"
#include "scheduler/looptune/StateVector.h"
#include "scheduler/looptune/TuningRecords.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <ostream>
#include <sstream>

namespace tk::looptune {

std::function<double(const TuneNest &)> jitGflops(const CpuTarget &target) {
  return [target](const TuneNest &n) {
    JitKernel k(lowerTunedNest(n, "tk_looptune_kernel"), target);
    return nestFlops(n) / k.bestSeconds(0.005, 3, 0.02) / 1e9;
  };
}

int vectorLanes(int vectorBits) { return vectorBits / 32; }

SearchResult runSearch(const std::string &search, const TuneNest &start, Evaluator &eval,
                       const SearchLimits &lim, const QNetwork *q) {
  if (search == "greedy1" || search == "greedy2") return greedySearch(start, search[6] - '0', eval, lim);
  if (search == "beam2dfs" || search == "beam4dfs") return beamSearch(start, search[4] - '0', true, eval, lim);
  if (search == "beam2bfs" || search == "beam4bfs") return beamSearch(start, search[4] - '0', false, eval, lim);
  if (search == "random") return randomSearch(start, eval, lim);
  if (search != "policy" || !q) throw InternalError("looptune: unknown search '" + search + "' or no policy");
  auto t0 = std::chrono::steady_clock::now();
  PolicyRollout r = rolloutPolicy(*q, start, lim.vectorLanes, lim.maxDepth);
  SearchResult res;
  res.best = start;
  res.gflops = res.startGflops = eval(start);
  for (size_t i = 1; i < r.states.size(); ++i) {
    double g = eval(r.states[i]);
    if (g > res.gflops) {
      res.gflops = g;
      res.best = r.states[i];
      res.actions.assign(r.actions.begin(), r.actions.begin() + static_cast<long>(i));
    }
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

std::optional<QNetwork> loadQNetwork(const std::string &path, SourceManager &sm, DiagEngine &diags) {
  std::string text;
  if (!readSourceFile(path, text)) {
    diags.error({}, "cannot read Q-network weights '" + path + "' (no such regular file, or larger than 64 MiB)");
    return std::nullopt;
  }
  int file = sm.addFile(path, std::move(text));
  std::optional<QNetwork> q = QNetwork::parse(file, sm, diags);
  if (q && (q->widths().front() != kStateSize || q->widths().back() != kNumActions)) {
    diags.error(SourceLoc{file, 2, 1}, "the Q-network must map {} inputs to {} actions", kStateSize, kNumActions);
    return std::nullopt;
  }
  return q;
}

std::optional<std::string> tuneModule(const ir::Module &m, const CpuTarget &target, const TuneOptions &opts,
                                      SourceManager &sm, DiagEngine &diags, std::ostream *log) {
  std::optional<QNetwork> q;
  if (opts.search == "policy") {
    q = loadQNetwork(opts.policyPath, sm, diags);
    if (!q) return std::nullopt;
  }
  SearchLimits lim;
  lim.vectorLanes = vectorLanes(target.vectorBits);
  lim.budgetSec = opts.budgetSec;
  std::vector<TuningRecord> records;
  for (const ir::Export &ex : m.exports) {
    std::string why = "it has a kernel";
    std::optional<TuneNest> n = ex.kernel ? std::nullopt : extractTuneNest(ex.op, &why);
    if (n && !innermostVectorizable(*n, lim.vectorLanes, &why)) n.reset();
    if (!n) {
      diags.note(ex.loc, "'" + ex.symbol + "' is not tuned: " + why);
      continue;
    }
    std::function<double(const TuneNest &)> gflops = jitGflops(target);
    if (opts.record)
      gflops = [&](const TuneNest &t) {
        JitKernel k(lowerTunedNest(t, "tk_looptune_kernel"), target);
        costmodel::Latency lat = driver::measureInterleaved({&k}, 3, 0.002).front();
        opts.record(t, lat);
        return nestFlops(t) / lat.median / 1e9;
      };
    Evaluator eval(gflops);
    SearchResult r = runSearch(opts.search, *n, eval, lim, q ? &*q : nullptr);
    records.push_back({ex.symbol, opFingerprint(*ex.op), opts.search, r.gflops, r.startGflops, r.actions, {}});
    if (log)
      *log << ex.symbol << ": " << printNest(*n) << " -> " << printNest(r.best) << "  " << r.startGflops << " -> "
           << r.gflops << " GFLOP/s (" << opts.search << ", " << r.seconds << " s, " << eval.measured()
           << " measured)\n";
  }
  return printTuningRecords(records);
}

} // namespace tk::looptune
