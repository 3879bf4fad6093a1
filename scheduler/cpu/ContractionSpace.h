// ContractionSpace: the blockings a constructed contraction kernel can take
// (ContractionTiles of ConstructSchedule.h) as a space the learned cost
// model ranks and bench/tk_dataset samples — which blockings are legal, a
// random legal draw, the decisions that describe one (Decisions.h) and the
// roofline's estimate of one, so that the two rankings see the same
// candidates.
#pragma once
#include "scheduler/TargetDesc.h"
#include "scheduler/construct/Roofline.h"
#include "scheduler/costmodel/Decisions.h"
#include "scheduler/cpu/ConstructSchedule.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tk {

// Whether constructSchedule can build `t` for a target with `target`'s
// vector registers and `elemBytes`-byte elements: nr whole vectors, at most
// four per row; mr x (nr / lanes) accumulators, nr / lanes operand vectors
// and a broadcast within the register file; mc and nc whole register tiles;
// ka and kd 0 or multiples of kc; every size positive and at most 2^20.
// Otherwise false and why (when `reason` is non-null).
bool contractionTilesLegal(const ContractionTiles &t, const TargetDesc &target, int elemBytes,
                           std::string *reason = nullptr);

// A legal blocking drawn from `rng`'s next numbers (construct::Rng): the
// register tile uniformly among the legal ones, kc, ka and kd powers of two
// (kc in 16..512), task tiles of 1..64 register tiles in rows and 1..16 in
// columns (log-uniform), streaming stores on or off (the rule's threshold).
ContractionTiles randomContractionTiles(const construct::HardwareDesc &hw, const TargetDesc &target, int elemBytes,
                                        construct::Rng &rng);

// The decisions of a blocking, after nestDecisions of the op's nest (dims
// [batch.., i, j, k]), each with what it makes of the extents (Decisions.h):
//   register_tile(mr, nr, cdiv(M, mr), cdiv(N, nr))
//   pack_depth(kc, ka, cdiv(K, kc))
//   task_tile(mc, nc, tasks = batch cdiv(M, mc) cdiv(N, nc), idle = the
//             units a last wave of tasks leaves without one)
//   direct_depth(kd, 1 when the one-panel version runs (kd > 0, N <= nr), K)
//   stream(bytes, 1 when tiles stream (K <= kc, output >= bytes), output bytes)
costmodel::DecisionSequence contractionDecisions(const construct::Space &space, const ContractionTiles &t);

// --rank=model: adds random legal blockings to `cands` (with origin
// "random") up to `limit`, drawn from opts.gensor.seed, so that the model
// can prefer what neither the rule nor the roofline would; then orders
// `cands` and `origin` by opts.rankByModel's scores of their decisions,
// best first (ties keep their order), and lists the five best on
// opts.gensor.trace when set.
void rankBlockingsByModel(const std::string &opName, const construct::Space &space,
                          const construct::ConstructOptions &opts, const TargetDesc &target, size_t limit,
                          std::vector<ContractionTiles> &cands, std::vector<std::string> &origin);

// "mr 6 nr 64 kc 128 ka 512 mc 126 nc 512 kd 2048 stream 2097152": for
// traces.
std::string printContractionTiles(const ContractionTiles &t);

// The blocking a sequence of contractionDecisions describes (the first
// primitive of each blocking kind); nullopt when one is missing.
std::optional<ContractionTiles> contractionTilesOf(const costmodel::DecisionSequence &seq);

// The roofline estimate (construct::estimate) of the state that holds the
// blocking's tiles: the task tile mc x nc x kc at the first per-core level
// (and the shared levels above it), mr x nr x kc in L1, mr x nr x 1 in
// registers; batch dimensions one at a time.
construct::Estimate contractionEstimate(const construct::Space &space, const ContractionTiles &t);

} // namespace tk
