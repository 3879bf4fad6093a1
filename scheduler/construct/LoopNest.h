// LoopNest: the iteration space of one op statement and the affine
// footprints of its tensor accesses — what the construction optimizer
// measures tiles against. Derived from the op's index expressions, so any
// op (matmul, convolution, pooling, reductions) gets the same treatment.
#pragma once
#include "ir/TensorIR.h"

#include <cstdint>
#include <map>
#include <set>
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
  // Per tensor dimension of `a`, how many indices one tile of sizes `tile`
  // (one per dim) touches: the whole extent where the index is not affine.
  std::vector<double> spans(const Access &a, const std::vector<int64_t> &tile) const;
  // Elements of `a` touched by one tile: the product of its spans.
  double footprint(const Access &a, const std::vector<int64_t> &tile) const;
  // Bytes of all accesses touched by one tile.
  double footprintBytes(const std::vector<int64_t> &tile) const;
  // Bytes moved into a level holding tiles `tile` inside tiles `parent` of
  // the level above, over the whole nest: every tile loads its inputs' 
  // footprint (no reuse between tiles, as in Roller), but the output tile
  // stays while the reduction runs over the parent's reduction tile — it is
  // loaded once per output tile and parent reduction block (the register
  // accumulators of a CPU tile are reloaded once per L1 depth block, not
  // per k step).
  double trafficBytes(const std::vector<int64_t> &tile, const std::vector<int64_t> &parent) const;
  // Index of the innermost output dimension (the stride-1 dimension of the
  // output, vectorized on the CPU); -1 when the output is a scalar.
  int vectorDim() const;
};

// Builds the nest of the op's heaviest statement (most iteration points at
// the assumed shapes). `shapes` gives values to shape symbols and integer
// scalar parameters; one without a value is assumed to be 3 when it is a
// window extent (windowExtents), else 1024 for a symbol and 1 for an
// integer scalar parameter (documented in docs/construct.md).
LoopNest buildLoopNest(const ir::Op &op, const std::map<std::string, int64_t> &shapes);

// The symbols and scalar parameters that bound a window: the extent (a
// plain name) of a reduction variable that appears in one load index
// together with an output index variable — conv2d's R and S
// (`y*stride + r*dilation - pad`), avgpool2d's `kernel`.
std::set<std::string> windowExtents(const ir::Op &op);

// Every shape symbol and integer scalar parameter of `op` with the value
// construction assumes for it: the hint in `shapes`, else the defaults of
// buildLoopNest (what the kernel is built and measured at).
std::map<std::string, int64_t> assumedValues(const ir::Op &op, const std::map<std::string, int64_t> &shapes);

// The value of an extent expression at the assumed shapes (at least 1).
int64_t evalExtent(const ir::Op &op, const ir::Expr &e, const std::map<std::string, int64_t> &shapes);

} // namespace tk::construct
