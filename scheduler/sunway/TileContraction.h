// TileContraction: the Sunway schedule of a reduction statement (matmul,
// batched matmul, convolution, pooling, row reductions) — the output cut
// into tiles a CPE keeps in its LDM across the whole reduction, the
// reduction cut into blocks whose operand boxes are staged in turn:
//
//   for (t) in spatial(64) * repeat(cdiv(T, 64)) on cpes {   // T output tiles
//     for (i, j) in repeat(X, Y) { C[ti*X + i, tj*Y + j] = 0 }
//     for (k.o) in repeat(cdiv(K, Kb)) { for (k) in repeat(Kb) {
//       if (k.o*Kb + k < K) { for (i, j) in repeat(X, Y) { C[..] += A[..] * B[..] } } } }
//   }
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

// Whether statement `a` of `op` can be tiled: its value is one reduction
// (or an element-wise function of one, as in avgpool) into a target of
// rank >= 1 it does not read. Says why not in `reason`.
bool tileContractionApplies(const ir::Assign &a, std::string *reason);

// The tiled statement. `tile` has one size per output dimension of `a`,
// then one per reduction variable, each >= 1 (LdmTiles chooses them for
// the nest of `a`). Requires tileContractionApplies(a).
ir::MStmtPtr tileContraction(const ir::Assign &a, const ir::Op &op, const std::vector<int64_t> &tile);

} // namespace tk
