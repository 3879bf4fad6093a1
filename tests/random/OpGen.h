// Random ops (docs/language.md §3): inputs of every element type and rank
// with shapes over 1-3 symbols (plain, offset, scaled, products), scalar
// parameters, several statements with intermediates, outputs with declared
// or inferred shapes, re-assigned tensors that read their old values, and
// `where` clauses.
#pragma once
#include "tests/random/ExprGen.h"

namespace tk::randprog {

// One statement `target[lhs] = rhs;` of a generated op.
struct OpStatement {
  std::string target;
  std::vector<VarInfo> lhs;
  Val rhs;
  NodePtr reduction; // kernel mode: the statement's one reduction (inside rhs as a Slot), or null
};

struct GeneratedOp {
  std::string name;
  std::string text; // the `op` declaration
  std::vector<Extent> symbols;
  std::vector<ScalarInfo> scalars;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs; // shapes as assigned
  std::vector<OpStatement> stmts;
};

struct OpOptions {
  // Kernel mode: no intermediates, each output assigned once from the
  // inputs with at most one reduction, so that KernelGen can write a kernel
  // computing the same values.
  bool kernelMode = false;
};

GeneratedOp generateOp(Rng &rng, const std::string &name, OpOptions opts);

} // namespace tk::randprog
