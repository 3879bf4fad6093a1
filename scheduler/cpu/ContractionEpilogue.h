// ContractionEpilogue: what a contraction statement computes around its
// sum, for ConstructSchedule. A statement
//   T[b.., i, j] = g(sum(k) X * Y, other reads at the output's indices)
// (gemm's `beta * C[i, j] + alpha * sum(k) ..`, a bias, an activation, a
// `select` on the indices) is built as the contraction into T followed, in
// each task, by one pass over the task's tile of T that applies g to the
// sums while the tile is still in the core's caches.
#pragma once
#include "ir/TensorIR.h"
#include "ir/MappingIR.h"

#include <string>

namespace tk {

// The one Reduce node of a's value (it may appear more than once); null
// when there is none or several distinct ones.
ir::Expr contractionSum(const ir::Assign &a);

// Whether g (a's value around `sum`) can be applied to the finished sums:
// it reads no element of T (the contraction has overwritten them) and
// holds no other reduction, and, when the sums are accumulated in T itself
// (`sumsInOutput`), the sum has T's type. False and why otherwise (when
// `reason` is set).
bool epilogueApplies(const ir::Assign &a, const ir::Expr &sum, std::string *reason, bool sumsInOutput = true);

// T[idx] = g(T[idx]) with the output's index variables i, j (the last two
// of a.vars) replaced by `row` and `col` inside `idx` and g (batch
// variables keep their names): the epilogue of one element. Requires
// epilogueApplies.
ir::MStmtPtr epilogueStore(const ir::Assign &a, const ir::Expr &sum, const std::vector<ir::Expr> &idx,
                           const ir::Expr &row, const ir::Expr &col);

// The same with the sum's value given (`value`, e.g. a read of a tile the
// sums were accumulated in) instead of read back from T[idx].
ir::MStmtPtr epilogueStoreOf(const ir::Assign &a, const ir::Expr &sum, const std::vector<ir::Expr> &idx,
                             const ir::Expr &value, const ir::Expr &row, const ir::Expr &col);

// For an epilogue `select(c, <the sum>, v)` (or with the sum in the else
// branch) whose condition compares expressions linear in the row and
// column variables i, j (constant coefficients: `j <= i`, `i - j < w`): a
// condition false only when the sum is used at no element of the box
// [r0, r0 + rows) x [c0, c0 + cols), so that the box's contraction may be
// skipped (the epilogue still writes v there). Null when the epilogue has
// no such form.
ir::Expr sumNeededInBox(const ir::Assign &a, const ir::Expr &sum, const ir::Expr &r0, int64_t rows,
                        const ir::Expr &c0, int64_t cols);

} // namespace tk
