// FoldContractionConsumer: a contraction and the element-wise statement
// that consumes it, written as two statements,
//   t[v..] = sum(k) X * Y;          (t an intermediate)
//   O[w..] = g(t[w..], other reads);
// as the one statement O[w..] = g(sum(k) X * Y [v := w], ..), so that
// ConstructSchedule builds the packed kernel with g as its epilogue
// (ContractionEpilogue.h) instead of the default schedule.
#pragma once
#include "ir/TensorIR.h"

#include <string>

namespace tk {

// Takes a verified op. Returns a copy with the two statements folded into
// one (same inputs, outputs and symbols; no intermediates) when the op is
// of the form above: two statements, the first writing the op's one
// intermediate with a value holding a reduction, the second writing an
// output over the same extents, reading the intermediate only at its own
// index variables in order (no padding or guard), holding no reduction.
// The in-place form `Y = sum ..; Y = g(Y)` (no intermediate, both writing
// the output Y) folds the same way.
// Otherwise null, and why in `reason` when given.
ir::OpPtr foldContractionConsumer(const ir::OpPtr &op, std::string *reason = nullptr);

} // namespace tk
