// The algebra of reductions and accumulating stores: the accumulator type,
// identities and the combine step, shared by the frontend, the default
// schedule (`C += ...` form) and the lowering of Reduce nodes and
// accumulating stores.
#pragma once
#include "ir/MappingIR.h"

namespace tk::ir {

// The type a reduction over values of type `t` accumulates in: sums and
// products of f16/bf16 in f32 and of i8 in i32 (a 16-bit partial sum
// stops growing at 256 (bf16) or 2048 (f16) added ones), bool in i32
// (values count as 0/1); max/min are exact in any type and keep `t`
// (bool: i32). The frontend builds every reduction in this type
// (accumulatingReduce; docs/abi.md, "Reductions"); LowerReductions
// allocates its accumulators in it.
ScalarType accumulatorType(ReduceOp op, ScalarType t);

// `op(vars) body` (a `mean` when `mean`, with op Sum) as the frontend
// builds it: the body converted to accumulatorType, the Reduce in that
// type, and the result converted back to the body's type once (bool: i32),
// e.g. `f16(sum(k < N: f32(X[k])))`. A mean divides in the accumulator's
// type: `bf16(sum(..) / f32(N))`; for integers in i64, by max(count, 1), so
// the count is never wrapped (i8(256) is 0) and an empty mean is 0.
Expr accumulatingReduce(ReduceOp op, std::vector<IndexVar> vars, Expr body, bool mean, SourceLoc loc = {});

// Whether `e` holds a Reduce node anywhere.
bool containsReduce(const Expr &e);

// 0 for sum, 1 for prod, -inf / +inf for max / min (the type's lowest /
// highest value for integers).
Expr reductionIdentity(ReduceOp op, ScalarType t);

// acc op value, e.g. `acc + value`, `max(acc, value)`.
Expr reductionCombine(ReduceOp op, Expr acc, Expr value);

// The reduction a store into a target of type `target` can accumulate in
// place: `value` itself when it is a Reduce, or the one reduction of an
// element-wise function of it (`sum(..) / 9.0`) when that reduction has
// the target's floating type (so partial sums lose nothing in the target).
// Null otherwise.
Expr soleReduction(const Expr &value, ScalarType target);

// The accumulating store matching a reduction (sum -> `+=`).
AccumOp accumFor(ReduceOp op);

// `old` combined with `value` by an accumulating store; AccumOp::None
// returns `value`.
Expr accumulate(AccumOp op, Expr old, Expr value);

} // namespace tk::ir
