// TileOutputs: the Sunway schedule of a statement of an op without a
// kernel — its output cut into tiles a CPE keeps in its LDM; for a
// reduction (matmul, convolution, pooling, row reductions) across the whole
// reduction, which is cut into blocks whose operand boxes are staged in
// turn:
//
//   for (t) in spatial(64) * repeat(cdiv(T, 64)) on cpes {   // T output tiles
//     for (i, j) in repeat(X, Y) { C[ti*X + i, tj*Y + j] = 0 }
//     for k_blk in 0..cdiv(K, Kb) { for k in 0..min(Kb, K - k_blk*Kb) {
//       for (i, j) in repeat(X, Y) { C[..] += A[..] * B[..] } } }
//   }
//
// (tiles at the edge of a dimension loop over what is left of it, as the
// last reduction block does). An element-wise statement is one store per
// tile element.
//
// The tile coordinates (ti, tj) are the mixed-radix digits of t, so the
// output dimensions are fused into one parallel index: a dimension smaller
// than 64 leaves no CPE idle. StageThroughLdm then finds C's box at the
// tile, A's and B's at the reduction block, and the DMA that fills them.
#pragma once
#include "ir/MappingIR.h"

#include <string>
#include <vector>

namespace tk {

// A loop over [0, n): a repeat when n is constant, else a sequential loop
// (a tile, block or row clamped at the end of its dimension).
ir::MStmtPtr tileLoop(const std::string &name, const ir::Expr &n, ir::MStmtPtr body, SourceLoc loc);

// Whether statement `a` can be tiled: a target of rank >= 1 its value does
// not read, and a value that is element-wise, one reduction, or an
// element-wise function of one in the target's type (avgpool's sum / k^2).
// Says why not in `reason`.
bool tileOutputsApplies(const ir::Assign &a, std::string *reason);

// The tiled statement. `tile` has one size per output dimension of `a`,
// then one per reduction variable, each >= 1 (LdmTiles chooses them for
// the nest of `a`). With `spread` an output dimension, the CPEs run in
// lockstep instead of in chunks:
//
//   for (t) in repeat(T' / 64) * spatial(64) on cpes { ... }
//
// where the spread dimension is t's innermost digit (its tile count
// rounded up to a multiple of 64 in T'), so in each round the 64 CPEs hold
// neighbouring tiles along it and the same tiles along every other
// dimension: an operand that does not depend on the spread dimension has
// the same box on every CPE at each reduction block, which StageThroughLdm
// fetches once and broadcasts. With `rows` an output dimension too, the
// round is 8 x 8 tiles: the CPE column (w % 8) takes neighbouring tiles
// along `spread` and the CPE row (w / 8) along `rows`, so an operand that
// depends on `rows` but not on `spread` has one box per CPE row (row
// broadcast) and one that depends on `spread` but not on `rows` one box
// per CPE column (StageThroughLdm fetches their union once for all). With
// `reductionInside` a reduction's loops
// stay inside the tile's own loops, as the op writes them (for (i, j) in
// tile { for k_blk { for k { .. } } }), instead of around them: swTVM's
// ablation without loop reordering, where the operand boxes can no longer
// be fetched once per reduction block for the whole tile. Requires
// tileOutputsApplies(a).
ir::MStmtPtr tileOutputs(const ir::Assign &a, const ir::Op &op, const std::vector<int64_t> &tile, int spread = -1,
                         bool reductionInside = false, int rows = -1);

} // namespace tk
