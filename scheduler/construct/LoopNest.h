// LoopNest: the iteration space of one op statement and the affine
// footprints of its tensor accesses — what the construction optimizer
// measures tiles against. Derived from the op's index expressions, so any
// op (matmul, convolution, pooling, reductions) gets the same treatment.
#pragma once
#include "ir/TensorIR.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tk::construct {

struct LoopDim {
  std::string name;   // the op's index or reduction variable
  int64_t extent = 1; // at the shapes the construction assumes
  bool reduction = false;
};

// One tensor access: per tensor dimension, the coefficient of every loop
// dimension in its (affine) index, and the tensor's extent there. A
// non-affine index counts as spanning the whole tensor dimension.
struct Access {
  std::string tensor;
  int elemBytes = 4;
  bool write = false;
  std::vector<std::vector<int64_t>> coef; // [tensor dim][loop dim]
  std::vector<int64_t> extent;            // [tensor dim]
  std::vector<bool> affine;               // [tensor dim]
};

struct LoopNest {
  std::string op;
  std::vector<LoopDim> dims; // output dimensions first (in order), then reduction variables
  std::vector<Access> accesses;
  double flopsPerPoint = 2;  // arithmetic operations per iteration point
  int elemBytes = 4;         // the widest accessed element

  double points() const;
  // Elements of `a` touched by one tile of sizes `tile` (one per dim).
  double footprint(const Access &a, const std::vector<int64_t> &tile) const;
  // Bytes of all accesses touched by one tile.
  double footprintBytes(const std::vector<int64_t> &tile) const;
  // Bytes moved into a level holding tiles `tile`, over the whole nest:
  // every tile loads its footprint (no reuse between tiles, as in Roller).
  double trafficBytes(const std::vector<int64_t> &tile) const;
  // Index of the innermost output dimension (the stride-1 dimension of the
  // output, vectorized on the CPU); -1 when the output is a scalar.
  int vectorDim() const;
};

// Builds the nest of the op's heaviest statement (most iteration points at
// the assumed shapes). `shapes` gives values to shape symbols and integer
// scalar parameters; a symbol without a value is assumed to be 1024 and an
// integer scalar parameter 1 (documented in docs/construct.md).
LoopNest buildLoopNest(const ir::Op &op, const std::map<std::string, int64_t> &shapes);

// The value of an extent expression at the assumed shapes (at least 1).
int64_t evalExtent(const ir::Op &op, const ir::Expr &e, const std::map<std::string, int64_t> &shapes);

} // namespace tk::construct
