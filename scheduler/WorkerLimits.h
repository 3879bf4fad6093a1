// Which task mappings a target can launch: worker kinds per target family
// and the count/nesting rules of each kind. TACO-style `applies` helpers:
// each returns false and says why in `reason`.
#pragma once
#include "ir/MappingIR.h"

#include <optional>
#include <string>
#include <vector>

namespace tk {

// Worker counts fixed by earlier mappings of the same kernel (all lanes
// mappings share one SIMD width, all threads mappings one block size).
struct LaunchConfig {
  std::optional<int64_t> lanes, threads, warps;
  SourceLoc lanesLoc, threadsLoc, warpsLoc;
};

// `m` is a MapFor with a worker kind; `enclosing` are the MapFors with a
// worker kind around it, outermost first. Rules:
//   the kind must exist on `family`;
//   cores:   any count, not nested in another worker mapping;
//   lanes:   a constant power of two <= 64, the same for every lanes mapping,
//            not nested in another lanes mapping;
//   blocks:  any count, outermost;
//   warps:   a constant count, not nested in warps or threads;
//   threads: a constant count <= 1024, the same for every threads mapping,
//            not nested in another threads mapping;
//   cpes:    exactly 64, not nested in another worker mapping.
// Records the lanes/threads/warps count in `launch`.
bool workerMappingApplies(const ir::MStmt &m, const std::vector<const ir::MStmt *> &enclosing,
                          ir::TargetFamily family, LaunchConfig &launch, std::string *reason);

// Kernel-wide rule checked after all mappings: warps * 32 == threads when a
// kernel maps onto both. The message is meant for the (first) threads
// mapping, `launch.threadsLoc`.
bool launchConfigConsistent(const LaunchConfig &launch, std::string *reason);

// "L:C" of a location, for messages that point at a second place.
std::string lineCol(SourceLoc loc);

} // namespace tk
