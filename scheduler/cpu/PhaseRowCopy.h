// The copy loops of DeinterleaveStridedRows: one row of a tensor, read with
// a constant stride k, written into k contiguous phase rows (optionally
// one per iteration of the window loops it was hoisted above, and padded
// with a read's `else` value so that reads past the row need no guard).
#pragma once
#include "ir/LoopIR.h"

#include <string>
#include <vector>

namespace tk {

// What one copy writes: P[q, d.., L + j] = T[row.., j*k + q].
struct PhaseRows {
  ir::TensorPtr src;            // T
  std::vector<ir::Expr> row;    // T's leading indices (over the window loops' variables)
  int64_t k = 0;                // the stride, 2..8
  ir::TensorPtr buf;            // P: [k, dims' extents.., cols]
  std::string j, q;             // the copy's column and phase loop variables
  std::vector<const ir::LStmt *> dims; // window loops the copy is hoisted above, outermost first
  std::vector<std::string> d;   // the copy's loop variable for each of them
  ir::Expr pad;                 // the padding value; null: not padded (L = 0, no fills)
  ir::Expr left, cols;          // padded: L columns before the row, P's row length
};

// 0 <= idx_d < shape_d for each given index (a prefix of t's dimensions),
// simplified.
ir::Expr withinTensor(const ir::TensorDecl &t, const std::vector<ir::Expr> &idx);

// The copy statement of `rows` (in the text below, the bracketed parts
// only for padded rows):
//   for d.. over the hoisted window loops' iterations (none without them):
//     if (row in bounds) {
//       for j in 0..W / k { P[0, d.., L + j] = T[row, j*k]; ...; P[k-1, d.., L + j] = T[row, j*k + k-1] }
//       for q in 0..W % k { P[q, d.., L + W / k] = T[row, W / k * k + q] }
//       [for q in W % k..k (when W % k != 0) { P[q, d.., L + W / k] = pad }]
//     } [else { columns L..L + cdiv(W, k) of the row = pad }]
// with the window variables in `row` at their d-th iteration (W: T's last
// extent). All phases are written by one loop over j (a fully interleaved
// copy, which LLVM vectorizes as loads and shuffles). The columns around
// the row are phaseRowPadFill's. Requires the fields set as documented.
ir::LStmtPtr phaseRowCopy(const PhaseRows &rows, SourceLoc loc);

// The padding around the rows of a padded group, the same for every row:
//   for d.. { for q in 0..k { for j in 0..L { P[q, d.., j] = pad }
//                             for j in L + cdiv(W, k)..cols { P[q, d.., j] = pad } } }
// (empty ranges left out). No copy writes these columns, so it runs once
// per buffer, not once per row: per row it was six 4-byte memset calls in
// a 3x3 stride-2 pooling, which ran 9% faster without them. Null when
// `rows` is not padded or both ranges are empty.
ir::LStmtPtr phaseRowPadFill(const PhaseRows &rows, SourceLoc loc);

} // namespace tk
