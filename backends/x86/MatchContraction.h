// Recognises contraction loop nests in loop IR — the shape that register
// blocking (EmitRegisterTile.h) turns into vector FMAs:
//
//   for k in ..                      (serial: the reduction loop(s); a perfect
//     [for k2 ..] ..                  nest of several, e.g. a convolution's r, s, c)
//     [for r in 0..R]                (optional, constant extent: tile rows)
//       for j in ..                  (the unit-stride dimension)
//         T[.., j] = T[.., j] + X * Y
//
// where T's element does not move with any k, one operand (the broadcast) does
// not depend on j and the other (the vector operand) walks memory with unit
// stride along j (a trailing index pair [e / S, e % S] over the tensor's
// last extent counts as the one index e, ir/FlatIndex.h). This covers accumulating default schedules
// (`C[i, j] += A[i, k] * B[k, j]`) and user kernels with `register`
// accumulator tiles (examples/matmul.tk). Predicates of the form
// `affine(j) < bound` (and <=, >, >=) become lane masks.
#pragma once
#include "ir/LoopIR.h"

#include <optional>
#include <string>
#include <vector>

namespace tk::x86 {

struct ContractionNest {
  const ir::LStmt *kLoop = nullptr;   // the outermost reduction loop (the nest's root)
  std::vector<const ir::LStmt *> kLoops; // all reduction loops, outermost first (kLoops[0] == kLoop)
  const ir::LStmt *rowLoop = nullptr; // optional constant-extent loop inside it
  int64_t rows = 1;                   // rowLoop's extent (1 without one)
  const ir::LStmt *vecLoop = nullptr; // innermost loop, vectorized along its variable
  const ir::LStmt *store = nullptr;   // the accumulating store
  ir::Expr accLoad;                   // T[..] read by the store's value
  ir::Expr bcast;                     // operand invariant along vecLoop
  ir::Expr vec;                       // operand with unit stride along vecLoop
};

// The nest rooted at `kLoop`, or nullopt with the reason it does not apply
// (when `reason` is non-null). Pure analysis; requires verified loop IR.
std::optional<ContractionNest> matchContraction(const ir::LStmt &kLoop, std::string *reason = nullptr);

// True when `e` is linear in `var` with coefficient exactly 1 (the variable
// appears in no other, non-linear, term).
bool unitStrideIn(const ir::Expr &e, const std::string &var);

// True when `pred` (null = always true) can become a lane mask along `var`:
// a conjunction whose terms either ignore `var` or compare a unit-stride
// expression in `var` with one that ignores it.
bool laneMaskable(const ir::Expr &pred, const std::string &var);

} // namespace tk::x86
