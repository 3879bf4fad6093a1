// Featurize: a decision sequence as the fixed-size matrix the cost model
// reads (TLP's "crop or pad to seqLen x embed"). Each primitive is one row:
//   one-hot of its kind (kPrimitiveKinds columns)
//   ++ its numbers, each as log2(1 + x) / 8 (kMaxPrimitiveNumbers columns;
//      sizes span 1 .. 2^30, so the logs put tile ratios on a common scale
//      where a linear layer sees them as differences)
//   ++ 4 bits of a hash of its first name (op and loop names)
// Sequences longer than seqLen keep their first seqLen rows; shorter ones
// are padded with zero rows that the network masks out.
#pragma once
#include "scheduler/costmodel/Decisions.h"

#include <string>
#include <vector>

namespace tk::costmodel {

inline constexpr int kNameBits = 4;

struct FeatureLayout {
  int seqLen = 24;
  int embed() const { return kPrimitiveKinds + kMaxPrimitiveNumbers + kNameBits; }
  // Names the layout, e.g. "tk-features-1 seq=24 kinds=11 numbers=3 names=4": stored
  // with trained weights so that a model is never fed rows it was not trained on.
  std::string signature() const;
};

// Writes seqLen x embed floats of `seq` to `out` (all of them: padding rows
// are zeros) and returns how many rows hold primitives (at least 1: an empty
// sequence gives one zero row, so every sample has a position to sum).
int featurize(const DecisionSequence &seq, const FeatureLayout &layout, float *out);

} // namespace tk::costmodel
