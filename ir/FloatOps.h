// FloatOps: the floating-point operations an expression performs, as the
// Sunway target counts them — arithmetic on float values and math calls,
// one each. The CPE code declares this count per store (TK_FLOPS) and the
// Sunway tile sizing models computing time with it, so both agree.
#pragma once
#include "ir/Expr.h"

#include <cstdint>

namespace tk::ir {

// Operations of `e`, nested reductions' bodies counted once (per point).
int64_t floatOps(const Expr &e);

} // namespace tk::ir
