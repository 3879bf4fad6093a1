// The algebra of reductions and accumulating stores: identities and the
// combine step, shared by the default schedule (`C += ...` form) and the
// lowering of Reduce nodes and accumulating stores.
#pragma once
#include "ir/MappingIR.h"

namespace tk::ir {

// 0 for sum, 1 for prod, -inf / +inf for max / min (the type's lowest /
// highest value for integers).
Expr reductionIdentity(ReduceOp op, ScalarType t);

// acc op value, e.g. `acc + value`, `max(acc, value)`.
Expr reductionCombine(ReduceOp op, Expr acc, Expr value);

// The accumulating store matching a reduction (sum -> `+=`).
AccumOp accumFor(ReduceOp op);

// `old` combined with `value` by an accumulating store; AccumOp::None
// returns `value`.
Expr accumulate(AccumOp op, Expr old, Expr value);

} // namespace tk::ir
