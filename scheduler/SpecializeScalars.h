// SpecializeScalars: copies of a CPU function for the common values of the
// integer scalars that scale loop variables in tensor indices (strides,
// dilations), so that the backend sees constant strides.
#pragma once
#include "ir/LoopIR.h"

namespace tk {

// Takes a loop-IR function. Its candidate scalars are integer scalar
// parameters that multiply a loop variable in a load or store index and that
// no `if` tests already (a constructor that versioned on them, like
// ConstructConvolution, is left alone); at most two, in parameter order.
// Returns the function with its body as
//   if (all candidates == 1) { body with them substituted }
//   else if (candidate k == 2, the others == 1) { ... }   (for each k)
//   else { body }
// so a pooling window's `x*stride + s - pad` reads with stride 1 or 2 — a
// contiguous or an even/odd-interleaved vector load — in the copies.
// Substituted bodies are simplified; `if`s that become constant are folded.
ir::LoweredFunc specializeScalars(const ir::LoweredFunc &f);

} // namespace tk
