#include "scheduler/WorkerLimits.h"

#include "ir/IntArith.h"
#include "ir/Simplify.h"
#include "scheduler/Refusal.h"

#include <fmt/format.h>

namespace tk {
using namespace ir;

std::string lineCol(SourceLoc loc) { return fmt::format("{}:{}", loc.line, loc.col); }

static std::string describe(const MStmt &m) {
  return "`" + printMapping(m.mapping) + " on " + std::string(workerKindName(*m.worker)) + "` at " +
         lineCol(m.loc);
}

static bool notNestedIn(const MStmt &m, const std::vector<const MStmt *> &enclosing,
                        std::initializer_list<WorkerKind> kinds, std::string *reason) {
  for (const MStmt *e : enclosing)
    for (WorkerKind k : kinds)
      if (*e->worker == k)
        return refuse(reason, std::string(workerKindName(*m.worker)) + " mappings cannot be nested inside " +
                                describe(*e));
  return true;
}

static std::string available(TargetFamily f) {
  std::string s;
  for (WorkerKind w : {WorkerKind::Cores, WorkerKind::Lanes, WorkerKind::Blocks, WorkerKind::Warps,
                       WorkerKind::Threads, WorkerKind::Cpes})
    if (targetHasWorker(f, w)) s += (s.empty() ? "" : ", ") + std::string(workerKindName(w));
  return s;
}

// The same count for every mapping of this kind in the kernel.
static bool sameCount(std::optional<int64_t> &slot, SourceLoc &slotLoc, int64_t n, const MStmt &m,
                      std::string *reason) {
  if (slot && *slot != n)
    return refuse(reason, fmt::format("every {} mapping of a kernel must use the same number of workers: {} here, "
                                      "{} at {}",
                                      workerKindName(*m.worker), n, *slot, lineCol(slotLoc)));
  if (!slot) {
    slot = n;
    slotLoc = m.loc;
  }
  return true;
}

bool workerMappingApplies(const MStmt &m, const std::vector<const MStmt *> &enclosing, TargetFamily family,
                          LaunchConfig &launch, std::string *reason) {
  WorkerKind w = *m.worker;
  std::string kind(workerKindName(w));
  if (!targetHasWorker(family, w))
    return refuse(reason, "worker kind '" + kind + "' is not available on target " +
                            std::string(targetFamilyName(family)) + " (it has " + available(family) + ")");
  int64_t n = 0;
  bool constant = isConstInt(m.mapping.numWorkers(), &n);
  std::string count = printExpr(m.mapping.numWorkers());
  switch (w) {
  case WorkerKind::Cores:
  case WorkerKind::Blocks:
  case WorkerKind::Cpes:
    if (!enclosing.empty())
      return refuse(reason, kind + " mappings must be outermost, but this one is nested inside " +
                              describe(*enclosing.back()));
    if (w == WorkerKind::Cpes && !(constant && n == 64))
      return refuse(reason, "a cpes mapping must use exactly the 64 CPEs of a core group, not " + count);
    return true;
  case WorkerKind::Lanes:
    if (!notNestedIn(m, enclosing, {WorkerKind::Lanes}, reason)) return false;
    if (!constant || n < 1 || n > 64 || (n & (n - 1)) != 0)
      return refuse(reason, "a lanes mapping needs a constant power-of-two number of lanes <= 64, not " + count);
    return sameCount(launch.lanes, launch.lanesLoc, n, m, reason);
  case WorkerKind::Warps:
    if (!notNestedIn(m, enclosing, {WorkerKind::Warps, WorkerKind::Threads}, reason)) return false;
    if (!constant || n < 1) return refuse(reason, "a warps mapping needs a constant number of warps, not " + count);
    return sameCount(launch.warps, launch.warpsLoc, n, m, reason);
  case WorkerKind::Threads:
    if (!notNestedIn(m, enclosing, {WorkerKind::Threads}, reason)) return false;
    if (!constant || n < 1 || n > 1024)
      return refuse(reason, "a threads mapping needs a constant number of threads <= 1024, not " + count);
    return sameCount(launch.threads, launch.threadsLoc, n, m, reason);
  }
  return true;
}

bool launchConfigConsistent(const LaunchConfig &launch, std::string *reason) {
  // Checked: 2^59 + 4 warps wrapped to 128 threads and matched a threads mapping of 128.
  std::optional<int64_t> warpThreads = launch.warps ? checkedMul(*launch.warps, 32) : std::nullopt;
  if (launch.warps && launch.threads && warpThreads != launch.threads)
    return refuse(reason, fmt::format("{} warps (at {}) need {} threads (32 per warp), but this threads mapping "
                                      "uses {}",
                                      *launch.warps, lineCol(launch.warpsLoc),
                                      warpThreads ? fmt::format("{}", *warpThreads) : "2^63 or more",
                                      *launch.threads));
  return true;
}

} // namespace tk
