// SemaSumTerms: a warning for the one reading of `sum` users trip over. A
// reduction's body extends as far right as possible, so
//   t[i, j] = sum(k) X[i, k] * W[k, j] + b[j];
// adds b[j] once per k, not once. A term of an unparenthesized sum body
// that uses none of the sum's variables is almost always meant outside it.
#pragma once
#include "frontend/AST.h"
#include "ir/Diagnostics.h"

namespace tk {

// Takes a `sum` reduction of the AST. Warns, at each term of its body's
// top-level `+`/`-` chain that mentions none of its reduction variables,
// unless the body is parenthesized (`sum(k) (X[k] + c)` says it is meant).
void warnTermsOutsideSum(const ast::Expr &sum, DiagEngine &diags);

} // namespace tk
