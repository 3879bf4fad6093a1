// Invariants of a mapping-IR kernel: variables bound by an enclosing
// mapping/loop, tensors visible (op tensors, or local tensors declared
// earlier in an enclosing block), store and load ranks, mapping atoms of one
// rank with valid permutations, repeat-only mappings when no worker is
// named. With `holesFilled`, no hole may remain; otherwise every hole must be
// one the kernel declares. Throws tk::InternalError on the first violation.
#pragma once
#include "ir/MappingIR.h"

namespace tk::ir {

void verifyMappingIR(const Kernel &k, bool holesFilled);

} // namespace tk::ir
