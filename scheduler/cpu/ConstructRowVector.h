// ConstructRowVector: the version of a constructed contraction
// (ConstructSchedule.h) for one output row, M == 1 — a vector times a
// matrix, a linear layer at batch size 1. Each element of Y is used once,
// so packing it (a copy of all of Y per call) only adds traffic: the tasks
// read X's row and Y's rows in place.
#pragma once
#include "ir/MappingIR.h"
#include "ir/TensorIR.h"
#include "scheduler/FreshNames.h"

namespace tk {

// The body, for a statement T[b.., i, j] = g(sum(k) X * Y) that
// constructScheduleApplies accepts, given its sum and factors (X ignores
// j): tasks over (b.., column blocks of `width` columns) on cores, each
//   T[.., 0, j] = 0 over its columns; for k: T[.., 0, j] += X * Y
//   (the register tile: accumulators along k, Y's rows read in place),
// then g over its columns when the statement has an epilogue. Requires
// i's extent to be 1 where the body runs (the caller's version test).
ir::MStmtPtr rowVectorBody(const ir::Assign &a, const ir::Expr &sum, const ir::Expr &x, const ir::Expr &y,
                           int64_t width, FreshNames &fresh);

} // namespace tk
