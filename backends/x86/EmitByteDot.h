// The arithmetic of a byte-quad product (ir/ByteDot.h) on i32 lane
// vectors, for the register tiles (EmitRegisterTile.h).
#pragma once
#include "backends/x86/CodegenContext.h"

namespace tk::x86 {

// acc + the four products of each lane's unsigned bytes in `quads` with the
// signed bytes of the lane's word in `broadcast` (all <lanes x i32>): one
// vpdpbusd where the target has AVX512-VNNI and 16 lanes, otherwise the
// same exact sums from shifts and 32-bit multiplies.
llvm::Value *emitByteDot(CodegenContext &cg, llvm::Value *acc, llvm::Value *quads, llvm::Value *broadcast, int lanes);

} // namespace tk::x86
