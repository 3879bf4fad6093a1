// PredicateAccesses: bounds guards on op tensor accesses.
#pragma once
#include "scheduler/Pipeline.h"

namespace tk {

// Takes a loop-IR function without Reduce nodes; returns it with every
// load and store of an op tensor (input, output, intermediate) guarded by
// `0 <= idx && idx < extent` for each dimension whose bound is not provable
// from the enclosing loops: a loop variable ranging over [0, extent) of that
// very extent, or an index whose constant bounds (from loops and lets with
// constant ranges) fit, or a blocked loop's `v + rest` with v in
// 0..min(.., extent - rest); shape symbols count as non-negative, which
// InsertRuntimeChecks guarantees at entry. A trailing index pair
// [e / S, e % S] over the last extent S (ir/FlatIndex.h) is guarded as one
// index, `0 <= e && e < H * S`. Loads get `pred` and read 0 (or their `else` value)
// outside; stores get `pred` and are dropped outside. This is what makes
// tiles that overshoot a dimension, and `else` padding, safe.
ir::LoweredFunc predicateAccesses(const ir::LoweredFunc &f);

} // namespace tk
