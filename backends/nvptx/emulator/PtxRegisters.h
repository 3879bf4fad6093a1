// PtxRegisters: how many 32-bit registers a kernel needs at most at once.
// PTX declares virtual registers (`.reg .f32 %f<500>` names 500, whatever
// the kernel keeps alive), so the declarations overstate what ptxas will
// allocate; the largest number live at one point of the program is what any
// allocation needs at least, and what the occupancy counters use.
#pragma once

#include "PtxProgram.h"

namespace tk::cuemu {

// The most 32-bit register units (64-bit registers count 2, predicates 0)
// live at any instruction of k, by backward liveness over its control flow.
// Requires k's branch targets resolved and k.slotUnits filled.
uint32_t maxLiveRegisters(const Kernel &k);

} // namespace tk::cuemu
