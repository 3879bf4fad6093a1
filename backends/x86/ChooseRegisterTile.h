// ChooseRegisterTile: how a contraction nest (MatchContraction.h) is cut
// into register blocks on a target — rows per block, vectors per row, lanes
// — from the vector register file and a measured cap on rows per block.
// Used by the register tiles (EmitRegisterTile.h).
#pragma once
#include "backends/x86/MatchContraction.h"
#include "backends/x86/X86Backend.h"

namespace tk::x86 {

// How a nest is blocked on `target`: rows per block, vectors per row, lanes.
struct RegisterTile {
  int64_t rowsPerBlock = 1;
  int64_t vectorsPerRow = 1;
  int lanes = 1;
};
// Requires the nest's accumulator to be f32 or f64 (as matched).
RegisterTile chooseRegisterTile(const ContractionNest &nest, const CpuTarget &target);

} // namespace tk::x86
