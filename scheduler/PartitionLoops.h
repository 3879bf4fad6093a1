// PartitionLoops: an innermost loop reading a window that sticks out of a
// tensor (pooling's and convolution's `x*stride + s - pad`) is split into
// the iterations near the edges, which keep their guards, and the middle,
// which reads without them (Halide's loop partitioning).
#pragma once
#include "ir/LoopIR.h"

#include <set>
#include <string>

namespace tk {

// Takes a loop-IR function after PredicateAccesses. For each innermost
// serial loop `for v in [m, m + e)` over stored elements (v in a store's
// indices: long loops, not a window's few steps), not folding into a
// register tile (a contraction T + a * b with a unit-stride factor, a flat
// pixel pair [p / W, p % W] counting as its one index p, or a
// window sum, max or min T (+) X with X read at unit stride, or at a
// constant stride 2..8 from a tensor the function never writes: the x86
// register tiles mask their edges), whose load guards include window
// conditions — a comparison affine in v with a constant coefficient whose
// other terms mention an enclosing serial loop's variable (the window offset) —
// or domain-edge conditions — the same with the other terms constants and
// shape symbols only (a stencil's `j + 1 < W`) — returns
//   for v in [m, lo)   { body }
//   for v in [lo, hi)  { body without those conditions }
//   for v in [hi, m + e) { body }
// with lo/hi the exact bounds where every such condition holds (solved for
// v, clamped to the loop's range). Guards that do not vary inside the loop
// (a stencil's `i + 1 < H` in the loop over j) version it first:
// `if (they hold) { split loop without them } else { split loop }`. Other
// guards stay everywhere; loops without such conditions are unchanged.
ir::LoweredFunc partitionLoops(const ir::LoweredFunc &f);

// Whether guard conjunct `g` is such a window condition for the innermost
// loop variable `v`, `outer` holding the enclosing serial loops' variables
// (VersionFullTiles leaves these to this pass).
bool isWindowCondition(const ir::Expr &g, const std::string &v, const std::set<std::string> &outer);

// Whether `s` contains a loop (false for the body of an innermost loop).
bool containsLoop(const ir::LStmtPtr &s);

// The largest constant stride whose strided rows DeinterleaveStridedRows
// copies into unit-stride phase rows (and whose window reductions this
// pass therefore leaves to the register tiles). Measured on convolutions
// with constant strides (2 threads, medians of 21 calls, three runs):
// stride 4 (3 -> 96 channels, 224^2, 4x4) 3.2-3.9 ms read strided against
// 1.46-1.61 deinterleaved; stride 8 (3 -> 256, 8x8) 14.8-15.9 against
// 12.7-13.6; stride 12 (64 -> 64, 112^2, 3x3) 2.09-2.66 strided against
// 3.13-4.52 deinterleaved; stride 16 (3 -> 768, 16x16) no gain.
inline constexpr int64_t kMaxDeinterleavedStride = 8;

// Whether some store in `body` has `v` in its indices: `v` picks the stored
// element, so its loop is a long one over outputs, not a window's few
// steps reduced into one element (shared with DeinterleaveStridedRows).
bool storesAlong(const ir::LStmtPtr &body, const std::string &v);

} // namespace tk
