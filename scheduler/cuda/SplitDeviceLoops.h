// SplitDeviceLoops: a device loop with a run-time trip count (a warp walking
// a row: `for c in 0..cdiv(N, 32)` reading X[row, c*32 + lane]) runs its
// full iterations without bounds guards, so that the loads of an unrolled
// body issue back to back instead of one per branch (docs/gpu.md,
// "Unguarded loop interiors").
#pragma once
#include "ir/LoopIR.h"

namespace tk {

// Takes a cuda loop-IR function after PredicateAccesses. For each innermost
// serial loop `for v in [m, m + e)` whose extent is not a constant (constant
// ones are unrolled `repeat` loops), whose body holds no `sync`, warp
// shuffle or intrinsic (all lanes must run their iterations together), and
// whose load and store guards include conjuncts that do not vary inside it
// (the row a warp owns: `b*8 + w < M`) or upper bounds affine in v with a
// constant coefficient (`c*32 + l < N`), returns
//   if (invariant conjuncts) {
//     for v in [m, hi)     { body without any of those conjuncts }
//     for v in [hi, m + e) { body without the invariant ones }
//   } else { the loop as it was }
// with hi where every affine conjunct holds, solved for v and clamped to the
// loop's range (an `if` or `select` in the body whose condition is such a
// conjunct counts as one, and is resolved in the interior) (no `if` without invariant conjuncts, one loop without
// affine ones). A loop with an affine lower bound too (a window sticking
// out at both ends: pooling, convolution) is left alone. Each thread runs
// the same iterations as before, so the rewrite is exact per thread.
ir::LoweredFunc splitDeviceLoops(const ir::LoweredFunc &f);

} // namespace tk
