// The C helpers generated Sunway sources share (emitted into NAME.params.h,
// which both the MPE and the CPE file include): floor division and modulo,
// saturating float-to-integer conversion, f16/bf16 storage and rounding,
// and the CPE's DMA of a box between main memory and LDM. They give C the
// semantics docs/abi.md fixes for every target, with no GNU extension.
#pragma once
#include <string_view>

namespace tk::sunway {

// Definitions for both sides (static inline functions, guarded).
std::string_view cPreludeCommon();
// The CPE side's DMA helper (athread_get / athread_put of a box), which
// needs slave.h.
std::string_view cPreludeDma();

} // namespace tk::sunway
