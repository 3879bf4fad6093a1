// LowerTaskMappings: mapping IR -> loop IR.
#pragma once
#include "scheduler/Pipeline.h"

namespace tk {

// Takes a checked kernel (holes filled, task mappings checked); returns the
// loop-IR function exported as `symbol`. Each task mapping becomes, by
// Hidet's rule (ir/TaskMapping.h), one loop over worker ids (Parallel on
// the mapping's worker kind; Vectorized for lanes) when it has spatial
// factors, then one Serial loop per repeat dimension, then `let`s that bind
// the mapping variables to their task coordinates. Ordinary loops become
// Serial loops, local tensors scoped Allocs, `sync` a Barrier, accumulating
// stores a store of the combined value. Index arithmetic is simplified.
// Reduce nodes are left for LowerReductions.
ir::LoweredFunc lowerTaskMappings(const ir::Kernel &k, const std::string &symbol, const TargetDesc &target);

} // namespace tk
