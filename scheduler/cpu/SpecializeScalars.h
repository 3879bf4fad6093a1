// SpecializeScalars: copies of a CPU function for the common values of the
// integer scalars that scale loop variables in tensor indices (strides,
// dilations), so that the backend sees constant strides.
#pragma once
#include "ir/LoopIR.h"

namespace tk {

// Takes a loop-IR function. Its candidate scalars are integer scalar
// parameters that multiply a loop variable in a load or store index; at
// most two, in parameter order. Strides among them (a multiplied
// expression mentions a loop variable that also indexes an output, in a
// statement other than a packing copy into a local buffer) get a copy at
// 2; the others (a convolution's dilation, scaling only window loops, or
// the stride ConstructConvolution reads only while packing its panels)
// are 1 in every copy and get none at 2; with no stride, no copies. An
// `if` already testing them (a
// constructor's own versions, like ConstructConvolution's) folds in each
// copy, so a copy holds only the version its values select; a copy whose
// values such an `if` already tests (its stride == 1 version) is not made.
// Returns the function with its body as
//   if (all candidates == 1) { body with them substituted }
//   else if (stride k == 2, the others == 1) { ... }   (for each stride k)
//   else { body }
// so a pooling window's `x*stride + s - pad` reads with stride 1 or 2 — a
// contiguous or an even/odd-interleaved vector load — in the copies.
// Substituted bodies are simplified; `if`s that become constant are folded.
ir::LoweredFunc specializeScalars(const ir::LoweredFunc &f);

} // namespace tk
