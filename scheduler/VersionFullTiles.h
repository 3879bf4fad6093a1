// VersionFullTiles: a guard-free copy of loop nests for the tiles that lie
// wholly inside the tensors (Halide's loop partitioning, at nest level).
#pragma once
#include "ir/LoopIR.h"

namespace tk {

// Takes a loop-IR function after PredicateAccesses. For each innermost
// serial loop nest (For/Block/Store/Prefetch only) whose guards include comparisons
// that are affine-monotone in the nest's loop variables, returns it as
//   if (every such comparison holds at the extreme iterations) { nest without them }
//   else if (those not on a store's innermost loop hold) { nest without those }
//   else { nest as it was, with the same treatment one loop level further in }
// (a loop that no such comparison mentions, a channel block around filter
// blocks, is passed through without using up that level)
// The condition is evaluated once, before the nest, from the loop bounds
// (symbolic intervals: sums, constant multiples, floor/ceil divisions by
// positive constants, min/max, modulo by constants). Guards it cannot
// bound stay in both copies. A window condition of a store's innermost loop
// (left to PartitionLoops) is dropped only when its bound is one the test
// already checks; a condition whose serial loops all index the stored
// element is the tensor's edge cutting the tile, not a window, and is
// tested like the others. Full tiles then run with unmasked vector
// loads and stores; partial tiles keep the masked code. Requires loops to
// be well nested (a loop's bounds use only variables bound outside it).
// A nest that only stores constants (or ifs around such nests, a first
// depth block's zeroing) followed by a plain nest (loops of the same name
// with the same bounds) is versioned as one, so that each copy
// keeps the initialisation right before the nest that accumulates into
// it (the x86 backend folds that into the register tile).
ir::LoweredFunc versionFullTiles(const ir::LoweredFunc &f);

} // namespace tk
