// ConstructSchedule: a cache- and register-blocked CPU kernel for an op
// without a kernel whose statement is a contraction
//   T[b.., i, j] = sum(k) X * Y     (X ignores j, Y ignores i; f32 or f64)
// — matmul, bmm, and any op of that form (a transposed operand included:
// packing makes every operand stride 1). It replaces DefaultSchedule for
// such ops on the CPU (docs/performance.md has the measurements).
#pragma once
#include "scheduler/Pipeline.h"
#include "scheduler/construct/HardwareDesc.h"

#include <string>

namespace tk {

// The blocking, BLIS-style (docs/construct.md, "Constructed CPU kernels"):
// mr x nr is the register tile (the accumulators of one EmitRegisterTile
// block), kc the depth of one packed panel, mc x nc one core's task.
struct ContractionTiles {
  int64_t mr = 4, nr = 16, kc = 64, mc = 64, nc = 64;
};

// Tiles for a machine: nr = lanes x (registers - 1) / (mr + 1) vectors (the
// mr x nr accumulators, one vector operand row and a broadcast fill the
// register file: 4 x 96 f32 with 32 zmm, 4 x 24 with 16 ymm); kc the
// largest power of two in [16, 512] whose A and B micro-panels
// (kc x (mr + nr) elements) fit the L1 level; mc x kc and kc x nc packed
// blocks within a quarter of L2 each, mc at most 128 rows and nc at most 4
// register tiles wide so that a 256 x 256 output already gives a task to
// each of two cores. Requires `hw` to be a CPU description.
ContractionTiles chooseContractionTiles(const construct::HardwareDesc &hw, int vectorBits, int elemBytes);

// True when `op` has exactly one statement, no intermediates, and that
// statement is a contraction as above over exactly one reduction variable
// with an output of rank >= 2; otherwise false and why (when `reason` is
// non-null).
bool constructScheduleApplies(const ir::Op &op, std::string *reason = nullptr);

// Takes a verified op for which constructScheduleApplies holds; returns a
// synthesized mapping-IR kernel:
//   for (b.., bi, bj) in spatial(B.., cdiv(M, mc), cdiv(N, nc)) on cores {
//     T[tile] = 0
//     for kb in 0..cdiv(K, kc) {
//       pack Y's kc x nc block into nc/nr contiguous panels (kc x nr)
//       pack X's mc x kc block into mc/mr contiguous panels (kc x mr)
//       for jr, ir (live panels only) { for k in 0..min(kc, K - kb*kc) {
//         for (r, j) in repeat(mr, nr) { T[..] += Xp[ir, k, r] * Yp[jr, k, j] } } }
//   } }
// The innermost three loops are the nest MatchContraction recognises; the
// packed operands carry no guards, so full register tiles run unmasked.
ir::KernelPtr constructSchedule(const ir::OpPtr &op, const ContractionTiles &tiles);

} // namespace tk
