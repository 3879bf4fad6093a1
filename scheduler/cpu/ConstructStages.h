// ConstructStages: an op of several statements as a sequence of stages, so
// that each contraction in it gets the constructed (packed, register-tiled)
// kernel instead of the default schedule of the whole op. A stage is either
//   - one statement the constructor takes (a contraction, possibly with an
//     epilogue), or a contraction and the element-wise statement that
//     consumes it, folded into one (FoldContractionConsumer), or
//   - a run of the other statements, given the default schedule, statement
//     fusion and the target's fusion of that run alone (softmax's rows).
// Tensors that cross stages are allocated once around them; the stages run
// in statement order, so the result is the op's sequential meaning.
// attention (s = Q Kᵀ; softmax rows; O = p V) becomes three stages, an MLP
// block (t = X W1 + b1; g = gelu(t); Y = g W2 + b2) two (docs/fusion.md,
// "Stages").
#pragma once
#include "scheduler/TargetHooks.h"

#include <functional>
#include <string>

namespace tk {

// Builds the kernel of a one-statement (or folded two-statement) op, or
// returns null when the constructor does not take it.
using ConstructOne = std::function<ir::KernelPtr(const ir::OpPtr &)>;

// Takes a verified op of two or more statements. Returns a synthesized
// kernel for the whole op when at least one stage is constructed by
// `construct` and every tensor is written by one stage only; otherwise null
// and why (when `reason` is non-null).
// Default stages are scheduled by ctx.defaultKernel (their fusion
// diagnostics are reported there).
ir::KernelPtr constructStages(const ir::OpPtr &op, const ConstructOne &construct, PassContext &ctx,
                              std::string *reason = nullptr);

} // namespace tk
