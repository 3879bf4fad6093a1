// InstrumentMappingChecks: the run-time mapping sanitizer of
// `tkc --check-mappings` (docs/driver.md), for what the static checks of
// task mappings cannot decide (CheckTaskMappings.h warns about it).
#pragma once
#include "scheduler/Pipeline.h"

namespace tk {

// Takes a lowered cpu function; returns it recording, for every element of
// every op output, who wrote it:
//   - parallel and vectorized loops become serial loops (their variable
//     still names the worker), so the record is exact and deterministic;
//     a phase counter goes up before and after each parallel loop, so
//     writes of two phases never count as a race;
//   - each output Z gets a side buffer `Z.writes: i64[2, shape of Z]`
//     (global, zeroed at entry): [0, idx] holds phase << 32 | worker + 2 of
//     the last store (0: never written; worker -1: no parallel loop),
//     [1, idx] the worker + 2 of a store in the same phase by a different
//     worker than the one recorded (a data race), else 0;
//   - every store to Z updates the record under the store's own guard;
//   - at exit, a write check per output (a Check with `tensor` set,
//     lowered to a call of tkrt_check_writes) lists the elements never
//     written or raced on to stderr and returns status 8.
// Outputs are computed as before, serially.
ir::LoweredFunc instrumentMappingChecks(const ir::LoweredFunc &f);

} // namespace tk
