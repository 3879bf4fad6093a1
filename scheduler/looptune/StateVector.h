// LoopTune's observation of a TuneNest: 20 numbers per loop, zero-padded to
// kMaxLoops rows (200 floats), the input of the Q-network.
//
// Row of a loop, in order:
//   0      1 when the cursor is on the loop
//   1      log2(size) / 8        (size = iterations, loopSize)
//   2      log2(tail + 1) / 8    (tail = loopTail)
//   3      1 for a loop of the compute nest, 0 for the write-back nest (the
//          initialization of a reduction's target, over the target's
//          variables in order; listed after the compute loops while rows remain)
//   4..19  stride histogram: for every tensor access (the target and each
//          load) whose flat element offset moves with the loop's variable,
//          stride = |d offset / d var| * step goes to bin min(15, ceil(log2
//          stride)), weighted by the product of the sizes of the loops from
//          the outermost down to this one; the bins are divided by their sum.
#pragma once
#include "scheduler/looptune/TuneNest.h"

#include <vector>

namespace tk::looptune {

inline constexpr int kFeaturesPerLoop = 20;
inline constexpr int kStateSize = kFeaturesPerLoop * kMaxLoops;

std::vector<float> stateVector(const TuneNest &n);

} // namespace tk::looptune
