// CheckLdmBudget: a Sunway kernel's `ldm` tensors must fit each CPE's LDM
// (the hardware description's ldm level, less the part the CPE stack
// keeps), and their sizes must be known at compile time. The buffers a
// parallel loop over the CPEs declares, with those declared outside every
// such loop (which each CPE holds too), are counted as live together.
#pragma once
#include "ir/Diagnostics.h"
#include "ir/MappingIR.h"

#include <cstdint>

namespace tk {

// Reports, at each CPE loop (or at the kernel for buffers outside any),
// an error naming every buffer and its bytes when they exceed
// `budgetBytes` (of `capacityBytes` of LDM), and an error at each `ldm`
// tensor whose size is not a constant. Returns false after reporting.
// Requires k's holes filled.
bool checkLdmBudget(const ir::Kernel &k, int64_t capacityBytes, int64_t budgetBytes, DiagEngine &diags);

} // namespace tk
