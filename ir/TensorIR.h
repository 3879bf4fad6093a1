// Tensor IR: what an `op` computes, in index notation, independent of any
// schedule. Produced by the frontend (Sema), read by the reference
// interpreter, the default scheduler and kernel checking.
#pragma once
#include "ir/Expr.h"

#include <memory>
#include <string>
#include <vector>

namespace tk::ir {

// One parameter of an op: a tensor (passed by pointer) or a scalar (passed
// by value, e.g. a convolution stride). Scalars are VarKind::Symbol vars.
struct Param {
  std::string name;
  ScalarType type = ScalarType::F32;
  TensorPtr tensor; // null for a scalar parameter
  SourceLoc loc;
  bool isScalar() const { return tensor == nullptr; }
};

// `where` constraint on symbols / scalar parameters, or kernel `require`.
struct Constraint {
  Expr cond;
  SourceLoc loc;
};

// target[vars...] = value;  vars range over target's extents (in order).
// `value` may contain Reduce nodes anywhere.
struct Assign {
  TensorPtr target;
  std::vector<IndexVar> vars;
  Expr value;
  SourceLoc loc;
};

struct Op {
  std::string name;
  std::vector<Param> inputs;              // declaration order
  std::vector<TensorPtr> outputs;         // declaration order
  std::vector<TensorPtr> intermediates;   // tensors assigned but not outputs
  // Shape symbols in order of first appearance in the signature: the
  // trailing int64_t arguments of the C ABI.
  std::vector<std::string> symbols;
  std::vector<Constraint> where;
  std::vector<Assign> body;               // executed in order
  SourceLoc loc;
};
using OpPtr = std::shared_ptr<Op>;

// Whether `t` is among op's outputs / intermediates. Passes that may stop
// storing a tensor ask the op they schedule, not the tensor's role: a stage
// of a larger op (scheduler/cpu/ConstructStages.h) must still store an
// intermediate of the whole op that a later stage reads.
inline bool isOutputOf(const Op &op, const TensorDecl *t) {
  for (const TensorPtr &o : op.outputs)
    if (o.get() == t) return true;
  return false;
}
inline bool isIntermediateOf(const Op &op, const TensorDecl *t) {
  for (const TensorPtr &o : op.intermediates)
    if (o.get() == t) return true;
  return false;
}

// Text form of the tensor IR (golden-tested): `--emit=tensor`.
std::string printOp(const Op &op);

} // namespace tk::ir
