// ConstructSchedule: a cache- and register-blocked CPU kernel for an op
// without a kernel whose statement is a contraction
//   T[b.., i, j] = sum(k) X * Y     (X ignores j, Y ignores i; f32 or f64)
// — matmul, bmm, and any op of that form (a transposed operand included:
// packing makes every operand stride 1). It replaces DefaultSchedule for
// such ops on the CPU (docs/performance.md has the measurements).
#pragma once
#include "scheduler/Pipeline.h"
#include "scheduler/construct/FillHoles.h"

#include <string>
#include <utility>
#include <vector>

namespace tk {

// The blocking, BLIS-style (docs/construct.md, "Constructed CPU kernels"):
// mr x nr is the register tile (the accumulators of one EmitRegisterTile
// block), kc the depth of one packed panel of Y, mc x nc one core's task,
// ka the depth of X's packed block (a multiple of kc; 0 or kc: as deep as
// Y's), kd the depth of a k block in the one-panel version, which reads X
// in place when N <= nr (0: no such version), streamBytes the output size
// from which tiles of a single k block store around the caches (0: never).
struct ContractionTiles {
  int64_t mr = 4, nr = 16, kc = 64, mc = 64, nc = 64, ka = 0, kd = 0, streamBytes = 0;
  bool operator==(const ContractionTiles &) const = default;
};

// The capacity rule (BLIS-style): nr = four vectors (64 f32 on AVX-512, 32
// on AVX2), a power of two so that power-of-two widths split into whole
// panels; mr the most rows whose mr x 4 accumulators, four operand vectors
// and a broadcast fit the register file (6 with 32 zmm, 2 with 16 ymm); kc
// the largest power of two in [16, 512] whose A and B micro-panel pair
// (kc x (mr + nr)) fills at most 3/4 of L1 (128 for 48 KiB); mc x kc and
// kc x nc packed blocks within a quarter of the first per-core level (L2)
// each, mc at most 128 rows in whole register tiles (126 = 21 x 6: a
// power-of-two M leaves one small last row task) and nc at most 8
// register tiles; ka = kc x the largest power of two up to 8 whose
// mc x ka block of X fits that quarter too (long runs of each row of X
// for the prefetcher); kd = kc x the largest power of two whose kd x nr
// panel of Y fills at most half of that level; streamBytes = that level's
// capacity over all units. Measured on square SGEMM 256-2048, 16384 x 1024
// x 64 and 4096 x 64 x 4096 (docs/performance.md). Requires a CPU
// description.
ContractionTiles chooseContractionTiles(const construct::HardwareDesc &hw, const TargetDesc &target, int elemBytes);

// The blocking of a Gensor state of the contraction's loop nest (dims
// [batch.., i, j, k]): the micro-kernel (mr, nr, kc) of the capacity rule —
// the traffic model does not value accumulators kept in registers along k
// (docs/construct.md, "From a state to the blocking") — and the task tile
// mc x nc from the state's tile at the first per-core level, rounded up to
// whole register tiles and halved until each packed block fits a quarter
// of that level.
ContractionTiles contractionTilesFromState(const construct::Space &space, const construct::ETIR &s, const TargetDesc &target);

// The capacity rule's blocking, then the distinct blockings of Gensor's
// ranked states for `op` at opts.shapes on opts.hw (best estimate first);
// at most `limit` in all, never empty.
std::vector<ContractionTiles> contractionCandidates(const ir::Op &op, const construct::ConstructOptions &opts,
                                                    const TargetDesc &target, size_t limit);

// The kernel of a contraction op: built from the first candidate, or with
// opts.measure set, from the fastest measured of the first
// opts.measureTopK (a tie keeps the one ranked first). With
// opts.rankByModel set, the candidates are the rule's and Gensor's
// blockings and random legal ones (ContractionSpace.h), up to
// opts.modelCandidates, in the order of the model's scores; the trace
// (opts.gensor.trace) lists the five best. Every timed candidate goes to
// opts.recordMeasured when set.
ir::KernelPtr constructContraction(const ir::OpPtr &op, const construct::ConstructOptions &opts, const TargetDesc &target);

// The two factors of the product that `sum` (a's contraction) sums, the
// one that ignores the innermost output index (X) first.
std::pair<ir::Expr, ir::Expr> contractionFactors(const ir::Assign &a, const ir::Expr &sum);

// Whether those factors can be packed as the product's operands: both read
// the reduction variable, X ignores the innermost output index and Y the
// row index; otherwise false and why (when `reason` is non-null). Shared
// by the f32/f64 and the byte-quad (ConstructByteContraction.h) kernels.
bool contractionFactorsApply(const ir::Assign &a, const ir::Expr &sum, std::string *reason = nullptr);

// True when `op` has exactly one statement, no intermediates, and that
// statement is a contraction as above over exactly one reduction variable,
// which both factors read, with an output of rank >= 2; otherwise false and why (when `reason` is
// non-null).
bool constructScheduleApplies(const ir::Op &op, std::string *reason = nullptr);

// Takes a verified op for which constructScheduleApplies holds; returns a
// synthesized mapping-IR kernel:
//   if (M > mc) {   // several row tasks: Y packed once, shared by all
//     global S: [b.. of Y, cdiv(N, nr), K, nr]
//     for (b.., panel, k block) in spatial(..) on cores { S[..] = Y[..] }
//     tasks reading Yp[jr, k, j] from S[b.., bj*(nc/nr) + jr, kb*kc + k, j]
//   } else {
//     tasks packing Y's kc x nc block themselves (below)
//   }
// where the tasks are
//   for (b.., bi, bj) in spatial(B.., cdiv(M, mc), cdiv(N, nc)) on cores {
//     for kb in 0..max(1, cdiv(K, kc)) {
//       pack Y's kc x nc block into nc/nr contiguous panels (kc x nr)
//       pack X's mc x kc block into mc/mr contiguous panels (kc x mr)
//       for jr, ir (live panels only) {
//         if (kb == 0) { for (r, j) in repeat(mr, nr) { T[..] = 0 } }
//         for k in 0..min(kc, K - kb*kc) {
//           prefetch ..   (the block of Y read next: PrefetchPanels.h)
//           for (r, j) in repeat(mr, nr) { T[..] += Xp[ir, k, r] * Yp[jr, k, j] } } }
//   } }
// The first k block's tiles set their elements to zero right before their
// k loop (no pass over C of its own; x86 starts the register tile at 0),
// and at least one k block runs, so K = 0 still stores the zeros.
// With ka > kc the k blocks are grouped: X's mc x ka block is packed once
// per ka / kc of them and the tile reads Xp[ir, kb*kc + k, r].
// The whole of the above is the `else` of
//   if (M == 1) { Y read in place, ConstructRowVector.h }
// (nothing is reused when there is one row), and with kd > 0 all of that
// the `else` of
//   if (N <= nr) { the same with kc = kd, nc = nr, no packed X, no prefetches:
//                  the tile reads X[b.., bi*mc + ir*mr + r, kb*kd + k] }
// (one column panel: each element of X serves one register tile). With
// streamBytes > 0 the first k block's tiles are themselves two versions:
//   if (K <= kc && size of T in bytes >= streamBytes) { the same, its
//     accumulating store marked `stream` } else { .. }
// (the tile is then the only writer of its elements, and T outgrows the
// private caches). A constant M, N or K keeps only the version it takes. The innermost three loops
// are the nest MatchContraction recognises; the packed operands carry no
// guards, so full register tiles run unmasked.
ir::KernelPtr constructSchedule(const ir::OpPtr &op, const ContractionTiles &tiles);

} // namespace tk
