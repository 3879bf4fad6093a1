// Register blocking of a contraction nest (MatchContraction.h), LoopNest
// style: the output tile T[r, j..] of the nest is cut into blocks of
// RB rows x VB vectors sized to the vector register file (32 zmm with
// AVX-512, 16 ymm/xmm otherwise, 4 kept for operands), each block's
// accumulators live in vector registers across the whole reduction loop,
// the vector operand is loaded once per vector and reused by every row, the
// broadcast operand is splatted once per row, and the products are
// llvm.fmuladd on LLVM vector types. Tails along the vector dimension and
// the nest's predicates become masks of llvm.masked.load/store — no scalar
// remainder loop. Each element's products are summed in k order; a sum
// that continues T's element adds that element after the loop (the e2e
// tolerance bounds the reassociation), so the FMAs never wait for it.
#pragma once
#include "backends/x86/ChooseRegisterTile.h"
#include "backends/x86/CodegenContext.h"

namespace tk::x86 {

// Emits `nest` at the builder's insertion point in place of nest.kLoop: a
// reduction of a runtime or long (>= 64 steps) extent as a call of a
// private never-inlined function holding the tile (OutlineCall.h), so that
// its hot loop's registers do not depend on the code around it (measured:
// no difference at 512^3 and 1024^3, 4% slower at K = 16); a short one
// (a pooling window) or a `register` tile inline.
// With `start` (tileStart) the tile replaces the statement it came from
// too: its accumulators start from the constant, or, for a conditional
// start, from zero, and its stores take the case that holds.
// Requires the variables and tensors the nest and `start` read to be bound
// in `cg`.
void emitRegisterTile(CodegenContext &cg, const ContractionNest &nest,
                      const std::optional<TileStart> &start = std::nullopt);

} // namespace tk::x86
