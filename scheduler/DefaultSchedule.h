// DefaultSchedule: the kernel used for an op that has no user kernel.
#pragma once
#include "scheduler/Pipeline.h"

namespace tk {

// Takes a verified tensor-IR op; returns a synthesized mapping-IR kernel
// (`synthesized = true`, named after the op) that computes every statement
// in order, for any shape:
//   - intermediates are allocated first (global scope: heap memory);
//   - each statement runs as `for (i0) in spatial(E0) on cores { for (i1, ..)
//     in repeat(E1, ..) { T[i0, i1, ..] = value } }`; leading dimensions with
//     small constant extents are folded into the spatial mapping so there is
//     enough parallel work, and the innermost (stride-1, vectorizable)
//     dimension stays in the inner loop;
//   - a statement whose whole value is a reduction initializes the target,
//     then loops the reduction variables outside the innermost output
//     dimension with an accumulating store (matmul runs i, k, j), so the
//     inner loop stays stride-1; other reductions stay in the stored value
//     (LowerReductions gives them a register accumulator).
// CUDA flattens each statement's output elements over cdiv(total, 256)
// blocks of 256 threads, one element per thread (reductions accumulate in
// registers); Sunway spreads the outer dimension over the 64 CPEs in
// contiguous chunks (overshooting stores are predicated away later).
ir::KernelPtr defaultSchedule(const ir::OpPtr &op, const TargetDesc &target);

// for (vars) in spatial(64) * repeat(perCpe) on cpes { body }: the tasks in
// contiguous chunks of `perCpe` over the 64 CPEs of a Sunway core group
// (perCpe = cdiv(tasks, 64)).
ir::MStmtPtr cpeChunks(std::vector<std::string> vars, ir::Expr perCpe, ir::MStmtPtr body, SourceLoc loc);

// The schedule defaultSchedule gives statement `a` of `op` (a target's
// constructKernel hook schedules the statements it does not build itself
// with it).
ir::MStmtPtr defaultStatement(const ir::Assign &a, const ir::Op &op, const TargetDesc &target);

} // namespace tk
