// SpellReductions: a kernel's reductions as the loops a `.tk` kernel writes
// (a kernel may not contain `sum(..)`), for printing a schedule back as
// source (printKernelSource, `tkc --emit=kernel`).
#pragma once
#include "ir/MappingIR.h"

namespace tk::ir {

// Takes a checked kernel. Returns a copy in which every store whose value
// holds reductions is preceded, for each outermost one, by
//   register acc: T[]; acc[] = identity; for v in 0..extent { acc[] op= body }
// (T the accumulator type, op the combining `+=`, `max=`, ...; the body's
// own reductions spelt the same way inside the loops), and reads acc[] where
// the reduction was — what LowerReductions makes of them, so the kernel
// compiles to the same code. Accumulators, and reduction variables that
// would clash with a name of the kernel, get names the kernel does not use.
KernelPtr spellReductions(const Kernel &k);

} // namespace tk::ir
