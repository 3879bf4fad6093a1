// MergeReductionVars: a contraction summed over several reduction variables
// as a sum over one, so that ConstructSchedule (which blocks one k loop)
// builds it. Two reduction variables a, b are merged into r over A * B
// when every read that mentions either holds them as plain, adjacent
// indices [.., a, b, ..] of dimensions whose second has b's extent: the
// read becomes [.., r / B, r % B, ..], which addresses the two dimensions
// as one without dividing (ir/FlatIndex.h). The einsum "bijk,jkl->bil",
//   Y[b, i, l] = sum(j, k) X[b, i, j, k] * W[j, k, l],
// becomes a sum over r < J * K of X[b, i, r / K, r % K] * W[r / K, r % K, l]:
// one matrix product of (BT·I) x (J·K) by (J·K) x L. The sum's order changes
// (as any blocking of k changes it).
#pragma once
#include "ir/TensorIR.h"

#include <string>

namespace tk {

// Takes a verified op. Returns a copy whose one statement's sum has as
// few reduction variables as merging pairs, repeatedly, gives (the other
// statements and tensors unchanged), when the op has one statement whose
// value holds one sum over two or more variables and at least one pair
// merges; otherwise null, and why in `reason` when given.
ir::OpPtr mergeReductionVars(const ir::OpPtr &op, std::string *reason = nullptr);

} // namespace tk
