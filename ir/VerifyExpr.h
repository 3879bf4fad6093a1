// Expression-level invariants shared by the three IR verifiers: every
// variable is bound, every tensor is visible, loads index with the tensor's
// rank, and holes/reductions appear only at the levels that allow them.
// Violations are compiler bugs: they throw tk::InternalError.
#pragma once
#include "ir/BindingScope.h"
#include "ir/MappingIR.h" // GpuIntrinsic

#include <set>
#include <string>

namespace tk::ir {

// What is visible from outside the verified tree (an op's symbols and
// tensors); what the tree binds around an expression (loops, lets,
// allocations) comes from the verifying walk's BindingScope.
struct VerifyScope {
  std::set<std::string> vars;
  std::set<const TensorDecl *> tensors;
  std::set<int> holeIds;    // holes that may appear (unfilled kernels)
  bool allowReduce = true;
  std::string where;        // "tensor IR of op matmul", used in messages
};

// The op's symbols, scalar parameters and tensors.
VerifyScope opScope(const Op &op, std::string where);

// Throws InternalError("<where>: <what> in `<expr>`") on the first
// violation. A variable or tensor is visible when `scope` or `bound` (what
// the statements around `e` bind) holds it.
void verifyExpr(const Expr &e, const VerifyScope &scope, const BindingScope &bound = {});

// Throws InternalError with the scope's context.
[[noreturn]] void verifyFail(const VerifyScope &scope, const std::string &what);

// Checks shared by the mapping- and loop-IR verifiers: a store writes a
// visible, non-input tensor with its rank and well-formed index/value
// expressions; intrinsic operands are tensor elements or constants (and
// atomic_add's value any expression).
void verifyStore(const TensorPtr &t, const std::vector<Expr> &indices, const Expr &value,
                 const VerifyScope &scope, const BindingScope &bound);
void verifyIntrinsicOperands(GpuIntrinsic kind, const std::vector<Expr> &operands, const VerifyScope &scope,
                             const BindingScope &bound);

} // namespace tk::ir
