// ConstructByteContraction: the packed CPU kernel of an 8-bit integer
// matrix product
//   C[i, j] = sum(k) i32(A[i, k]) * i32(B[k, j])     (A, B i8; C i32)
// for targets with 8-bit dot products (TargetDesc::byteDot: AVX512-VNNI).
// One vpdpbusd adds four u8 x s8 products into each of 16 i32 lanes, 64
// multiply-adds where an f32 FMA does 16, so the operands are packed in
// byte quads along k: lane jj of a row of B's panel holds B[4q .. 4q+3, j],
// and a row of A's panel is broadcast four bytes at a time. The instruction
// takes one operand unsigned, so B is packed offset by 128 (its sign bit
// flipped) and the task subtracts 128 * sum(k) A[i, k] from its rows at the
// end (docs/construct.md, "Integer products").
#pragma once
#include "scheduler/cpu/ConstructSchedule.h"

namespace tk {

// True when `op` is one statement C[b.., i, j] = sum(k) i32(A) * i32(B)
// (either factor order) with A and B i8 tensors, C i32 of rank >= 2 (batch
// dimensions b.. first), A ignoring j and B ignoring i, and `target` has
// byte dot products — or such a sum inside an element-wise epilogue g
// (ContractionEpilogue.h; the output then of any type: requantization to
// i8); otherwise false and why (when `reason` is non-null).
bool byteContractionApplies(const ir::Op &op, const TargetDesc &target, std::string *reason = nullptr);

// Takes an op for which byteContractionApplies holds and the blocking of
// an f32 product of the same shape (ContractionTiles: mr x nr register
// tile of i32 accumulators, kc counted in quads of k, whose bytes equal
// kc f32 rows; ka, kd and streamBytes unused). Returns the kernel
//   global Yq: i8[b.. of B, cdiv(N, nr), cdiv(K, 4), nr, 4]
//   for (b.. of B, panel, quad block) in spatial(..) on cores
//     Yq[.., p, q, w, b] = i8(flip(B[.., 4q + b, p*nr + w]))    (0 past K)
//   for (b.., bi, bj) in spatial(.., cdiv(M, mc), cdiv(N, nc)) on cores {
//     local Xq: i8[mc / mr, mr, kc, 4]; local rs: i32[mc]
//     for kb in quad blocks {
//       Xq[p, w, d, b] = A[row p*mr + w, 4*(kb*kc + d) + b]   (0 outside A)
//       for jr, ir: [kb == 0: tile = 0]
//         for kk, b in 0..4, (r, jj) in repeat(mr, nr):
//           C[.., ..] += u8(Yq[.., kb*kc + kk, jj, b]) * i32(Xq[ir, r, kk, b])
//     }
//     rs[r] = sum(k) i32(A[row r, k]);  C[row r, ..] -= 128 * rs[r]
//   }
// With an epilogue g the tile accumulates into the task's `local sums:
// i32[mc, nc]` instead of C, and the last pass stores
// C[row r, col c] = g(sums[r, c] - 128 * rs[r]).
// where flip(b) = b + 128 as a byte (b < 0 ? b + 128 : b - 128) and
// u8(x) = (i32(x) + 256) % 256 reads it back as 0..255: the x86 register
// tile (MatchContraction.h) turns the b loop into one vpdpbusd per vector.
ir::KernelPtr constructByteContraction(const ir::OpPtr &op, const ContractionTiles &t);

} // namespace tk
