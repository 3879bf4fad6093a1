// Recognises the loop nests in loop IR that register blocking
// (EmitRegisterTile.h) turns into vector code with accumulators held in
// registers across the reduction:
//
//   for k in ..                      (serial: the reduction loop(s); a perfect
//     [for k2 ..] ..                  nest of several, e.g. a convolution's r, s, c;
//       [prefetch ..;]                the innermost one may prefetch first)
//     [for r in 0..R]                (optional, constant extent: tile rows)
//       for j in ..                  (the unit-stride dimension)
//         T[.., j] = T[.., j] + X * Y      (a contraction)
//         T[.., j] = T[.., j] + u8(V[.., j, b]) * i32(X[.., b])
//                                          (a byte-quad product, ir/ByteDot.h:
//                                           the innermost reduction loop is
//                                           b in 0..4, T i32)
//         T[.., j] = T[.., j] + X          (a window sum: average pooling)
//         T[.., j] = max(T[.., j], X)      (a window max or min: max pooling)
//
// where T's element does not move with any k, the vector operand X walks
// memory with unit stride along j (a trailing index pair [e / S, e % S]
// over the tensor's last extent counts as the one index e, ir/FlatIndex.h)
// and, in a contraction, the other operand (the broadcast) does not depend
// on j. This covers accumulating default schedules (`C[i, j] += A[i, k] *
// B[k, j]`, pooling's window loops) and user kernels with `register`
// accumulator tiles (examples/matmul.tk). Predicates that are affine
// comparisons in j (LaneMask.h) become lane masks.
#pragma once
#include "ir/LoopIR.h"

#include <optional>
#include <string>
#include <vector>

namespace tk::x86 {

struct ContractionNest {
  ir::BinOp fold = ir::BinOp::Add;    // T = T fold X: Add (a multiply-add with bcast), Max or Min
  const ir::LStmt *kLoop = nullptr;   // the outermost reduction loop (the nest's root)
  std::vector<const ir::LStmt *> kLoops; // all reduction loops, outermost first (kLoops[0] == kLoop)
  const ir::LStmt *rowLoop = nullptr; // optional constant-extent loop inside it
  int64_t rows = 1;                   // rowLoop's extent (1 without one)
  const ir::LStmt *vecLoop = nullptr; // innermost loop, vectorized along its variable
  const ir::LStmt *store = nullptr;   // the accumulating store
  ir::Expr accLoad;                   // T[..] read by the store's value
  ir::Expr bcast;                     // contraction: the operand invariant along vecLoop; else null
  ir::Expr vec;                       // the operand with unit stride along vecLoop
  std::vector<ir::LStmtPtr> prefetches; // issued each iteration of kLoops.back(), before the tile
  // A byte-quad product: the loop over the quad's byte (not in kLoops; its
  // variable is 0 in the operands' addresses, which then point at whole
  // quads: vec at one per lane, bcast at one for all lanes).
  const ir::LStmt *quadLoop = nullptr;
};

// The nest rooted at `kLoop`, or nullopt with the reason it does not apply
// (when `reason` is non-null). Pure analysis; requires verified loop IR.
std::optional<ContractionNest> matchContraction(const ir::LStmt &kLoop, std::string *reason = nullptr);

// How a register tile's accumulators start, read from `init`, the
// statement right before the nest. An initialisation: the same row and
// vector loops (up to their variables' names) around one store of a
// constant to T at the indices the nest accumulates into, under the same
// guard, those indices injective over (row, column). Skipping it is then
// exact: each element the nest stores held that constant when the nest
// read it, no element is read back after another block stored it, and the
// operands never read T (matched above). `init` is one initialisation (one
// case, no condition), or ifs around initialisations, their conditions
// reading no memory (a constructed matmul's first depth block: `if (kb ==
// 0) { T = 0 }`, streamed when the output is large). Such a nest is
// emitted once: its accumulators start from zero and its stores take the
// one case whose path holds (adding the case's constant), or add T's
// elements when none does (a later depth block). Nullopt when `init` is
// neither, or when a case may not hold and the nest is not a sum. Requires
// `n` from matchContraction.
struct TileStart {
  struct Case {
    ir::Expr cond;  // the conjunction of the ifs' conditions on its path (null: always)
    ir::Expr value; // the constant the initialisation stores
    bool stream;    // the initialisation's store is marked `stream`
  };
  std::vector<Case> cases; // pairwise exclusive
  // Whether the tile's start depends on a condition.
  bool conditional() const { return cases.size() != 1 || cases[0].cond; }
};
std::optional<TileStart> tileStart(const ir::LStmt &init, const ContractionNest &n);

// True when `e` is linear in `var` with coefficient exactly 1 (the variable
// appears in no other, non-linear, term).
bool unitStrideIn(const ir::Expr &e, const std::string &var);

} // namespace tk::x86
