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
#include <string>

namespace tk {

// Whether the statements of `op` (element-wise intermediates already
// inlined) form one row group: at least two statements over the same
// leading "row" dimensions, each either a reduction of one column
// variable to a value per row (or an element-wise function of one), or an
// element-wise statement over the rows and one column dimension, all with
// the same column extent; a statement reads what another wrote only at
// its own row (and column), after it was written; intermediates are
// per-row values. Says why not in `reason`.
bool fuseRowsApplies(const ir::Op &op, std::string *reason);

// The column extent C of the group's rows. Requires fuseRowsApplies(op).
ir::Expr rowColumns(const ir::Op &op);

// The most columns whose row buffers fit `budgetBytes` of LDM: a power of
// two, counting every tensor the group reads or writes per column, read
// ones twice (StageThroughLdm double-buffers them); 0 when not even one
// fits. Requires fuseRowsApplies(op).
int64_t rowCapacity(const ir::Op &op, int64_t budgetBytes);

// The fused row loop for rows of at most `cap` columns. Requires
// fuseRowsApplies(op) and cap >= 1.
ir::MStmtPtr fuseRows(const ir::Op &op, int64_t cap);

} // namespace tk
