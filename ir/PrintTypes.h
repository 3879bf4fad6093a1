// Small pieces of IR text shared by the printers of all three levels.
#pragma once
#include "ir/Expr.h"

#include <string>

namespace tk::ir {

// `f32[M, K]` (`f32[]` for a scalar).
std::string printTensorType(const TensorDecl &t);
// `A[i, k]` for a tensor name and index list.
std::string printAccess(const TensorDecl &t, const std::vector<Expr> &indices);

} // namespace tk::ir
