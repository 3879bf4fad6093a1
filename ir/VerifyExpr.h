// Expression-level invariants shared by the three IR verifiers: every
// variable is bound, every tensor is visible, loads index with the tensor's
// rank, and holes/reductions appear only at the levels that allow them.
// Violations are compiler bugs: they throw tk::InternalError.
#pragma once
#include "ir/TensorIR.h"

#include <set>
#include <string>

namespace tk::ir {

struct VerifyScope {
  std::set<std::string> vars;
  std::set<const TensorDecl *> tensors;
  std::set<int> holeIds;    // holes that may appear (unfilled kernels)
  bool allowReduce = true;
  std::string where;        // "tensor IR of op matmul", used in messages
};

// The op's symbols, scalar parameters and tensors.
VerifyScope opScope(const Op &op, std::string where);

// Throws InternalError("<where>: <what> in `<expr>`") on the first violation.
void verifyExpr(const Expr &e, const VerifyScope &scope);

// Throws InternalError with the scope's context.
[[noreturn]] void verifyFail(const VerifyScope &scope, const std::string &what);

} // namespace tk::ir
