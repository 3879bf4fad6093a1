// InlineElementwise: an intermediate computed element-wise (no reduction)
// is substituted into the statements that read it, and neither stored nor
// read back: `t = X + b; Y = max(t, 0)` becomes `Y = max(X + b, 0)`. A
// target whose memory traffic is explicit (Sunway: every intermediate is a
// DMA round trip through main memory) saves the whole write and re-read,
// at the price of recomputing the value where several statements read it.
#pragma once
#include "ir/TensorIR.h"

#include <functional>
#include <string>

namespace tk {

// Whether intermediate statement `index` of `op` can be inlined: its target
// is an intermediate of op written only by it, over its whole shape, with a
// value free of reductions and of reads of the target itself, and every
// read of it elsewhere has no `else` (so the element always exists). Says
// why not in `reason`.
bool inlineElementwiseApplies(const ir::Op &op, size_t index, std::string *reason);

// Whether statement `a` writes every element of its target, an
// intermediate of `op` (and says why not in `reason`): what substituting its
// value for the target's reads requires, here and in FuseTileEpilogues.
bool writesWholeIntermediate(const ir::Op &op, const ir::Assign &a, std::string *reason);

// `op` where, statement by statement, each one `valueOf(op, i)` gives a
// value for (null: keep it) has that value substituted for every read of
// its target (`a`'s index variables bound to the read's indices) and is
// removed with its intermediate; `op` itself when none is. Requires
// writesWholeIntermediate of each statement substituted.
ir::OpPtr substituteStatements(const ir::OpPtr &op,
                               const std::function<ir::Expr(const ir::Op &, size_t)> &valueOf);

// `op` with every statement that inlineElementwiseApplies to substituted
// into its readers (the value converted to the intermediate's type first,
// so rounding is kept) and removed, with its intermediate; `op` itself when
// there is none.
ir::OpPtr inlineElementwise(const ir::OpPtr &op);

} // namespace tk
