// StateSchedule: a runnable CPU kernel from any construction state (ETIR)
// of an op's loop nest — the generic "tiled loop nest from a state" that
// lets Gensor's, Roller's and the exhaustive search's choices be measured
// for ops without a specialised constructor (conv2d, gemv, pooling;
// docs/construct.md, "Kernels from any state").
#pragma once
#include "ir/MappingIR.h"
#include "scheduler/construct/ETIR.h"

#include <string>

namespace tk {

// True when `op` has exactly one statement, no intermediates and an output
// of rank >= 1; otherwise false and why (when `reason` is non-null).
bool stateScheduleApplies(const ir::Op &op, std::string *reason = nullptr);

// Takes a verified op for which stateScheduleApplies holds and a state of
// its nest (space.nest() built from `op`); returns a synthesized CPU
// kernel. With P, L, G the output tiles of the unit level (the first level
// private to a core), the level above the registers and the registers —
// each rounded up to a multiple of the faster one so that tiles partition
// the output:
//   for (b..) in spatial(cdiv(E, P)..) on cores {           one unit tile per task
//     O[P tile] = identity                                  (streamed form only)
//     for pb (reduction blocks of the unit tile's depth)    (streamed form only)
//       for l.. (L tiles of the P tile)
//         for rb (reduction blocks of the L tile's depth)   (streamed form only)
//           for g.. (G tiles of the L tile)
//             for rr.. (the block's reduction points)       (streamed form only)
//               for (t..) in repeat(G..) { O[..] op= summand }
//   }
// The streamed form applies when the value is one reduction (sum, max,
// ...) that does not read the output: the reduction runs outside the
// register tile, one point at a time, as the CPU model assumes. Otherwise
// (a reduction inside an expression, e.g. average pooling's sum / k^2) the
// register tile stores the whole value and the reduction tiles are unused.
// Loops of one iteration are left out; reduction loops stop at the extent,
// output tiles past it are dropped by PredicateAccesses.
ir::KernelPtr stateSchedule(const ir::OpPtr &op, const construct::Space &space, const construct::ETIR &s);

} // namespace tk
