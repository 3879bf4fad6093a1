// Kernels (docs/language.md §4-§7) that implement a kernel-mode op: each
// output element computed from the op's statement, written through a
// random task mapping: spatial over cores, tiles composed with repeat
// (`ranks=` permutations, holes `?`, `let` tile sizes), nested tile loops,
// sequential loops, lanes, repeat-only nests, reversed compositions, with
// reductions accumulated in `register` / `local` tensors or in the output,
// `if` guards and `sync`.
//
// With a flaw, one output's mapping is made wrong by a symbolic amount, so
// that it leaves elements unwritten or lets several workers write the same
// element for general shapes (docs/architecture.md, "Static checks of task
// mappings"). Such a kernel must be refused, warned about, or caught by the
// run-time mapping sanitizer (--check-mappings); never pass silently.
#pragma once
#include "tests/random/OpGen.h"

namespace tk::randprog {

enum class Flaw {
  None,
  Shrink,         // spatial(E - 1, ...): the last row is never written
  Half,           // spatial(E / 2, ...): half the rows are never written
  FloorTiles,     // spatial(E / T) * repeat(T): the ragged last tile is lost
  HalfIndex,      // Z[i / 2, ...]: two workers per element, half unwritten
  EvenIndex,      // Z[i - i % 2, ...]: two workers per element
  ReverseStore,   // Z[i, ..] and Z[E - 1 - i, ..] from every task: conflicts
  NegativeRepeat, // spatial(cdiv(E, T)) * repeat(-T): a negative extent
  OverlapTiles,   // tiles of T elements every T - 1: neighbours overlap
  IdleWorker,     // spatial(E.., 2) with the extra coordinate unused
  Shift,          // Z[i + 1, ...]: element 0 is never written
};

const char *flawName(Flaw f);

struct GeneratedKernel {
  std::string text;
  Flaw flaw = Flaw::None;
  std::string flawedOutput; // the output whose mapping carries the flaw
};

GeneratedKernel generateKernel(Rng &rng, const GeneratedOp &op, const std::string &name, Flaw flaw);

} // namespace tk::randprog
