// FuseRowsInLdm: the Sunway schedule of a row operator (softmax, layer
// normalization, RMSNorm). Scheduled statement by statement, each pass over
// a row reads the row from main memory again: softmax's maximum, sum and
// quotient read X three times. Here a CPE takes a row at a time and runs
// every statement on it, so StageThroughLdm fetches the row into LDM once
// (with the next row's fetch overlapping this one's work) and writes the
// result once; the per-row values that no other statement of the op needs
// in main memory (the maximum, the sum) stay in LDM:
//
//   for (t) in spatial(64) * repeat(cdiv(ROWS, 64)) on cpes {
//     ldm m: f32[1];  m[0] = -inf;  for j in 0..min(C, cap) { m[0] max= X[i, j]; }
//     ldm s: f32[1];  s[0] = 0;     for j in 0..min(C, cap) { s[0] += exp(X[i, j] - m[0]); }
//     for j in 0..min(C, cap) { Y[i, j] = exp(X[i, j] - m[0]) / s[0]; }
//   }
//
// The loop bound min(C, cap) gives StageThroughLdm the constant box it
// needs; the caller runs this only when C <= cap (its own schedule
// otherwise).
#pragma once
#include "ir/MappingIR.h"
#include "ir/TensorIR.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tk {

// One statement of a row group: its reduction (null for an element-wise
// statement) and the name of its column variable.
struct RowStmt {
  const ir::Assign *a;
  ir::Expr red;
  std::string column;
};

// The statements of an op that form one row group, in order.
struct RowGroup {
  size_t rank = 0;             // row dimensions
  std::vector<ir::Expr> rows;  // their extents
  ir::Expr columns;            // the column extent C
  std::vector<RowStmt> stmts;
};

// The row group the statements of `op` (element-wise intermediates already
// inlined) form, if they do: at least two statements over the same
// leading "row" dimensions, each either a reduction of one column
// variable to a value per row (or an element-wise function of one), or an
// element-wise statement over the rows and one column dimension, all with
// the same column extent; a statement reads what another wrote only at
// its own row (and column), after it was written; intermediates are
// per-row values. Says why not in `reason`. The group points into `op`.
std::optional<RowGroup> rowGroup(const ir::Op &op, std::string *reason);

// The most columns whose row buffers fit `budgetBytes` of LDM: a power of
// two, counting every tensor the group reads or writes per column, read
// ones twice (StageThroughLdm double-buffers them); 0 when not even one
// fits. With `streamed`, for rows longer than that: read tensors once (no
// room for a second row), tensors the group only writes not at all (they
// go out in blocks of kStreamBlock columns, fuseRows' `streamed`), as a
// multiple of kStreamBlock.
// Modelled (tk_sunway_bench, softmax 128 x 10000, the long-row case):
// 0.421 ms at 64 columns, 0.355 at 256, 0.344 at 512, 0.338 at 1024 and
// 0.335 at 2048, the LDM used falling from 55.8 to 48.1 KiB; 256 is within
// 6% of the best, and a larger block is the open step (issue 25's note).
constexpr int64_t kStreamBlock = 256;
int64_t rowCapacity(const RowGroup &g, int64_t budgetBytes, bool streamed = false);

// The fused row loop of `op`'s group `g` for rows of at most `cap`
// columns. With `streamed`, each element-wise statement's column loop
// runs in blocks of kStreamBlock columns, which give the tensor it writes
// a box of one block (the row's reads keep their row-long boxes).
// Requires cap >= 1.
ir::MStmtPtr fuseRows(const ir::Op &op, const RowGroup &g, int64_t cap, bool streamed = false);

} // namespace tk
