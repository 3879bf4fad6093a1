// `tkc tune`: LoopTune over the exports of a module, measuring candidates
// with the JIT (JitMeasure.h); also the entry points the LoopTune bench and
// training tool share.
#pragma once
#include "backends/x86/X86Backend.h"
#include "ir/Diagnostics.h"
#include "ir/Module.h"
#include "scheduler/costmodel/Records.h"
#include "scheduler/looptune/QNetwork.h"
#include "scheduler/looptune/Search.h"

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

namespace tk::looptune {

// GFLOP/s of a nest compiled for `target` (lowerTunedNest + JitKernel): a
// short warm-up, then the best of at least 3 calls within ~20 ms.
std::function<double(const TuneNest &)> jitGflops(const CpuTarget &target);

// f32 lanes of vector registers `vectorBits` wide (a target's widest).
int vectorLanes(int vectorBits);

// Runs one search by name (Options' list: policy, greedy1, greedy2,
// beam2dfs, beam4dfs, beam2bfs, beam4bfs, random). `policy` rolls the
// Q-network out for 10 steps without measuring, then measures the visited
// states and returns the best (never worse than the start); it requires `q`.
SearchResult runSearch(const std::string &search, const TuneNest &start, Evaluator &eval,
                       const SearchLimits &lim, const QNetwork *q);

// Loads Q-network weights from `path`; errors at their location in `diags`.
std::optional<QNetwork> loadQNetwork(const std::string &path, SourceManager &sm, DiagEngine &diags);

struct TuneOptions {
  std::string search = "policy";
  double budgetSec = 1.0;
  std::string policyPath; // required for search == "policy"
  // --records-out: called with every nest timed and its latency; the nests
  // are then timed as records are (the median of 3 interleaved samples of
  // at least 2 ms) instead of by the best of a few calls.
  std::function<void(const TuneNest &, const costmodel::Latency &)> record;
};

// Tunes every export of `m` that has no kernel and whose op is tunable
// (extractTuneNest; exports that are not get a note saying why) and returns
// the tuning-records text. One line per export goes to `log` when set.
// nullopt after an error (unreadable or invalid policy weights).
std::optional<std::string> tuneModule(const ir::Module &m, const CpuTarget &target, const TuneOptions &opts,
                                      SourceManager &sm, DiagEngine &diags, std::ostream *log);

} // namespace tk::looptune
