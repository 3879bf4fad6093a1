#include "scheduler/cpu/ConstructSchedule.h"

#include "scheduler/cpu/ContractionEpilogue.h"
#include "scheduler/cpu/ConstructRowVector.h"
#include "scheduler/cpu/ContractionSpace.h"
#include "ir/Simplify.h"
#include "scheduler/FreshNames.h"
#include "scheduler/cpu/PackOperand.h"
#include "scheduler/cpu/PrefetchPanels.h"
#include "scheduler/Refusal.h"
#include "scheduler/construct/Gensor.h"

#include <algorithm>

namespace tk {
using namespace ir;

namespace {

Expr loopVar(const std::string &n) { return var(n, VarKind::Loop); }

// if (cond) { thenS } else { elseS }, or the one version a constant `cond`
// (after simplification) takes.
MStmtPtr versions(const Expr &cond, MStmtPtr thenS, MStmtPtr elseS, SourceLoc loc) {
  Expr c = simplify(cond);
  if (c->kind == ExprKind::BoolImm) return c->intValue ? thenS : elseS;
  return mIf(c, std::move(thenS), std::move(elseS), loc);
}

// How deep X's packed block goes: kc times the largest power of two up to 8
// whose mc x ka block fits `budget` bytes. A task reads each row of X in
// runs of ka elements; at ka = kc = 128 a run is 8 cache lines of a new
// page, too short for the hardware prefetcher, and packing X took 38% of
// a 16384 x 1024 x 64 matmul on one core. Measured there (2 threads):
// 200, 223, 240 and 254 GFLOP/s at ka = 128, 256, 512 and 1024, with
// 1024^3 unchanged within noise.
int64_t packedDepthOfX(const ContractionTiles &t, int64_t budget, int64_t elemBytes) {
  int64_t f = 1;
  while (f < 8 && t.mc * t.kc * (2 * f) * elemBytes <= budget) f *= 2;
  return f * t.kc;
}

// How deep the one-panel version's k blocks go (ContractionTiles::kd): kc
// times the largest power of two whose kd x nr panel of Y fits `budget`
// bytes. Its tasks read each row of X in runs of kd elements; at
// 16384 x 1024 x 64 (2 threads), kd = 256 ran at 272 GFLOP/s and
// kd = 1024 at 305, against 243 with X packed.
int64_t directDepth(const ContractionTiles &t, int64_t budget, int64_t elemBytes) {
  int64_t kd = t.kc;
  while (2 * kd * t.nr * elemBytes <= budget) kd *= 2;
  return kd;
}

} // namespace

std::pair<Expr, Expr> contractionFactors(const Assign &a, const Expr &sum) {
  const Expr &prod = sum->args[0];
  const std::string &j = a.vars.back().name;
  if (mentionsVar(prod->args[0], j)) return {prod->args[1], prod->args[0]};
  return {prod->args[0], prod->args[1]};
}

bool contractionFactorsApply(const Assign &a, const Expr &sum, std::string *reason) {
  auto [x, y] = contractionFactors(a, sum);
  const std::string &i = a.vars[a.vars.size() - 2].name, &j = a.vars.back().name;
  // Both operands are packed along k: a factor that ignores it (a rank-0
  // tensor, a row of bias) is a scaling, not an operand of the product.
  const std::string &k = sum->rvars[0].name;
  if (!mentionsVar(x, k) || !mentionsVar(y, k)) return refuse(reason, "a factor does not depend on the reduction variable");
  if (mentionsVar(x, j)) return refuse(reason, "both factors depend on the innermost output index");
  if (mentionsVar(y, i)) return refuse(reason, "the factor along the innermost index also depends on the row index");
  return true;
}

ContractionTiles chooseContractionTiles(const construct::HardwareDesc &hw, const TargetDesc &target, int elemBytes) {
  ContractionTiles t;
  int64_t lanes = std::max(1, target.vectorBits / (8 * elemBytes));
  int64_t regs = target.vectorRegisters;
  // Four vectors per row: nr is then a power of two (64 f32 lanes on
  // AVX-512), so power-of-two widths split into whole, unmasked panels.
  // Measured against 2, 3 and 5 vectors (14 x 32, 9 x 48, 5 x 80 tiles; 2
  // threads, medians of 4 alternating runs): 1024^3 12.1 ms against 13.6,
  // 13.9 and 12.8; 512^3 1.86 against 1.98, 2.07, 2.27; 1000^3 11.6
  // against 12.4, 12.5, 12.0. Narrow outputs favour narrower tiles (N = 40:
  // 3 vectors 0.0068 ms against 0.0089; N = 93: 2 or 3 vectors 0.74-0.79
  // against 1.09), which only a run-time choice by N could use.
  const int64_t rowVectors = 4;
  t.nr = lanes * rowVectors;
  // mr: as many rows as the register file holds (6 with 32 zmm: 24
  // accumulators; 2 with 16 ymm). In isolation, with its panels in L1, the
  // 6 x 64 tile ran at 96% of the FMA peak here and the 4 x 64 one at 85%:
  // 16 accumulators do not hide the broadcast loads.
  t.mr = 1;
  while ((t.mr + 1) * rowVectors + rowVectors + 1 <= regs) ++t.mr;
  size_t unit = construct::unitLevel(hw);
  int64_t l2Bytes = hw.unitCapacity(unit);
  // kc: the largest power of two up to 256 whose B micro-panel (kc x nr)
  // fills at most 1/16 of L2, and at least 16. The micro-panel need not
  // fit L1: on the Zen 4 measured here (32 KiB L1, 1 MiB L2; 2 threads,
  // medians of 4-5 alternating runs, kc set through the L1 size of --hw)
  // 1024^3 took 28.5, 19.5, 16.2, 14.1 and 11.6 ms at kc = 8, 16, 32, 64
  // and 128 in one series, 11.9, 11.2 and 10.8 at 64, 128, 256 in the
  // next, 11.9, 10.8, 10.7 at 64, 256, 512 in a third; 2048^3 172, 133,
  // 113, 99 and 92 ms (8 .. 128), then 95.6, 89.8, 86.9 (64 .. 256); 512^3
  // 1.59 (64), 1.41 (128), 1.35 (256 and 512). The
  // earlier rule, the micro-panel pair within 3/4 of L1, chose 64 there.
  // On a 48 KiB-L1 machine kc = 512 had measured 0.96-0.97x the rate of
  // 128 (and 256 slower), hence the cap. The floor binds only below 64 KiB
  // of L2 (f32, AVX-512).
  t.kc = 16;
  while (t.kc < 256 && 2 * t.kc * t.nr * elemBytes * 16 <= l2Bytes) t.kc *= 2;
  // mc x kc and kc x nc packed blocks within a quarter of L2; mc at most
  // 128 rows in whole register tiles (126 = 21 x 6: 96-row tasks measured
  // 0.79x oneDNN at 512^3 against 0.90x for 126, and mc 256/512 no gain at
  // 2048^3 and a single task at 256^3); nc at most 8 register tiles (the
  // earlier 128 x 384 blocking measured 0.70x oneDNN at 2048^3 against
  // 0.81x for 126 x 512). docs/construct.md, "The default blocking". With
  // kc = 256 and a 1 MiB L2 the quarter gives nc = 256 and ka = 512; half
  // of L2 (nc = 512, ka = 1024) measured 2% faster at 1024^3 and 2048^3
  // (10.27 against 10.46 ms, 82.2 against 84.2; 512^3 the same) and an
  // eighth 2% slower, with the blocks then filling all of L2 but C's tile.
  int64_t quarter = l2Bytes / 4;
  t.mc = std::max(t.mr, std::min<int64_t>(128, quarter / (t.kc * elemBytes)) / t.mr * t.mr);
  t.nc = std::max(t.nr, std::min<int64_t>(8 * t.nr, quarter / (t.kc * elemBytes)) / t.nr * t.nr);
  t.ka = packedDepthOfX(t, quarter, elemBytes);
  t.kd = directDepth(t, l2Bytes / 2, elemBytes);
  // An output larger than all the cores' private caches together is
  // evicted before anything reads it, so a tile that writes its elements
  // once stores them around the caches: no read for ownership, no
  // write-back. Measured (2 threads, 2 x 2 MiB of L2; f32): 4096 x 64 x
  // 4096 +16%, 2048 x 64 x 2048 +8%, 1024 x 64 x 1024 (4 MiB) +6%, but
  // 512 x 64 x 512 (1 MiB, kept in L2 between calls) -5%.
  t.streamBytes = int64_t(hw.units) * l2Bytes;
  return t;
}

ContractionTiles contractionTilesFromState(const construct::Space &space, const construct::ETIR &s, const TargetDesc &target) {
  const construct::LoopNest &nest = space.nest();
  size_t reg = space.levels() - 1, l1 = std::max<size_t>(reg - 1, 1);
  size_t unit = std::min(construct::unitLevel(space.hw()), l1);
  size_t k = nest.dims.size() - 1, j = k - 1, i = k - 2;
  auto roundUp = [](int64_t v, int64_t m) { return (std::max<int64_t>(v, 1) + m - 1) / m * m; };
  int64_t eb = nest.elemBytes, quarter = space.hw().unitCapacity(unit) / 4;
  // The micro-kernel (register tile, kc) stays the capacity rule's: Roller's
  // traffic model, which Gensor inherits, does not value accumulators kept
  // in registers along k, and its register/L1 tiles for a 1024^3 matmul
  // (8 x 16, k 4) measured 4.5x slower than the rule's.
  ContractionTiles t = chooseContractionTiles(space.hw(), target, int(eb));
  // The task of one core: the state's tile at the first per-core level, in
  // whole register tiles, its packed panels within a quarter of the level.
  t.mc = roundUp(s.tile[unit][i], t.mr);
  t.nc = roundUp(s.tile[unit][j], t.nr);
  while (t.mc > t.mr && t.mc * t.kc * eb > quarter) t.mc = roundUp(t.mc / 2, t.mr);
  while (t.nc > t.nr && t.nc * t.kc * eb > quarter) t.nc = roundUp(t.nc / 2, t.nr);
  t.ka = packedDepthOfX(t, quarter, eb);
  return t;
}

std::vector<ContractionTiles> contractionCandidates(const Op &op, const construct::ConstructOptions &opts,
                                                    const TargetDesc &target, size_t limit) {
  construct::Space space(construct::buildLoopNest(op, opts.shapes), opts.hw);
  construct::GensorResult g = construct::runGensor(space, opts.gensor);
  // The capacity rule's blocking comes first: it is the default (measured
  // faster than Gensor's first state on every square matmul here), and
  // --rank=measure times it against the states' task tiles.
  std::vector<ContractionTiles> out{chooseContractionTiles(opts.hw, target, space.nest().elemBytes)};
  for (const construct::Ranked &r : g.ranked) {
    if (out.size() >= limit) break;
    ContractionTiles t = contractionTilesFromState(space, r.state, target);
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  }
  return out;
}

KernelPtr constructContraction(const OpPtr &op, const construct::ConstructOptions &opts, const TargetDesc &target) {
  bool measured = static_cast<bool>(opts.measure), ranked = static_cast<bool>(opts.rankByModel);
  size_t limit = ranked ? std::max<size_t>(opts.modelCandidates, 1) : measured ? std::max<size_t>(opts.measureTopK, 1) : 1;
  // At most 8 candidates are timed: each costs ~0.85 s of JIT compile and
  // timing (1000^3: 2.5 s for one, 6.1 s for 4, 9.4 s for 8), and the
  // fastest of 8 was within 4% of the rule's (10.35 against 10.76 ms).
  std::vector<ContractionTiles> cands = contractionCandidates(*op, opts, target, std::min<size_t>(limit, 8));
  std::vector<std::string> origin(cands.size(), "gensor");
  origin[0] = "rule";
  construct::Space space(construct::buildLoopNest(*op, opts.shapes), opts.hw);
  if (ranked) rankBlockingsByModel(op->name, space, opts, target, limit, cands, origin);
  KernelPtr best = constructSchedule(op, cands.front());
  // One candidate is timed only to be recorded.
  if (!measured || (cands.size() == 1 && !opts.recordMeasured)) return best;
  double bestSec = 0;
  for (size_t c = 0; c < std::min(cands.size(), std::max<size_t>(opts.measureTopK, 1)); ++c) {
    KernelPtr k = c == 0 ? best : constructSchedule(op, cands[c]);
    costmodel::Latency lat = opts.measure(k);
    if (opts.recordMeasured) opts.recordMeasured(*op, contractionDecisions(space, cands[c]), origin[c], lat);
    // Strictly faster only: a tie keeps the candidate ranked first, so the
    // choice is deterministic up to timing noise.
    if (c == 0 || lat.median < bestSec) bestSec = lat.median, best = k;
  }
  return best;
}

bool constructScheduleApplies(const Op &op, std::string *reason) {
  if (op.body.size() != 1 || !op.intermediates.empty())
    return refuse(reason, "the op has more than one statement");
  const Assign &a = op.body[0];
  if (a.vars.size() < 2) return refuse(reason, "the output has rank < 2");
  if (a.target->dtype != ScalarType::F32 && a.target->dtype != ScalarType::F64)
    return refuse(reason, "the output is not f32 or f64");
  Expr v = contractionSum(a);
  if (!v || v->reduceOp != ReduceOp::Sum || v->rvars.size() != 1)
    return refuse(reason, "the value is not a sum over one reduction variable");
  const Expr &prod = v->args[0];
  if (prod->kind != ExprKind::Binary || prod->binOp != BinOp::Mul)
    return refuse(reason, "the summand is not a product");
  for (const Expr &f : prod->args) {
    if (f->kind != ExprKind::Load || f->type != a.target->dtype)
      return refuse(reason, "a factor is not an element of a tensor of the output's type");
    if (f->tensor == a.target) return refuse(reason, "a factor reads the output");
  }
  return contractionFactorsApply(a, v, reason) && epilogueApplies(a, v, reason);
}

namespace {

// The kernel's body for blocking t (see constructSchedule). With `direct`,
// the tasks read X in place instead of packing it (the one-panel version).
MStmtPtr contractionBody(const Op &op, const ContractionTiles &t, bool direct, FreshNames &fresh) {
  const Assign &a = op.body[0];
  SourceLoc loc = a.loc;
  size_t rank = a.vars.size();
  Expr sum = contractionSum(a);
  const IndexVar &iv = a.vars[rank - 2], &jv = a.vars[rank - 1], &kv = sum->rvars[0];
  std::string bi = fresh("bi"), bj = fresh("bj"), kb = fresh("kb"), ir = fresh("ir"), jr = fresh("jr"),
              kk = fresh("kk"), r = fresh("r"), jj = fresh("jj");

  // Batch dimensions keep their names as worker variables.
  std::vector<std::pair<std::string, Expr>> batch;
  std::vector<std::string> workers;
  std::vector<Expr> spatial;
  for (size_t d = 0; d + 2 < rank; ++d) {
    batch.push_back({a.vars[d].name, loopVar(a.vars[d].name)});
    workers.push_back(a.vars[d].name);
    spatial.push_back(a.vars[d].extent);
  }
  workers.insert(workers.end(), {bi, bj});
  spatial.push_back(ceilDiv(iv.extent, intImm(t.mc)));
  spatial.push_back(ceilDiv(jv.extent, intImm(t.nc)));

  Expr rowBase = mul(loopVar(bi), intImm(t.mc)), colBase = mul(loopVar(bj), intImm(t.nc));
  // A's blocks may be deeper than B's: ka = a multiple of kc.
  int64_t ka = std::max<int64_t>(t.ka / t.kc, 1) * t.kc;
  bool deepA = ka > t.kc;
  std::string kaV = fresh("ka");
  Expr aBase = mul(loopVar(deepA ? kaV : kb), intImm(ka));
  Expr depthBase = deepA ? add(aBase, mul(loopVar(kb), intImm(t.kc))) : aBase;
  auto outIndex = [&](Expr row, Expr col) {
    std::vector<Expr> idx;
    for (const auto &b : batch) idx.push_back(b.second);
    idx.push_back(simplify(add(rowBase, row)));
    idx.push_back(simplify(add(colBase, col)));
    return idx;
  };

  // Live panels and depth rows: a tile sticking out of a small tensor
  // packs and multiplies only what it will store.
  Expr liveDepth = simplify(binary(BinOp::Min, intImm(t.kc), sub(kv.extent, depthBase)));
  // A task always has at least one live panel, so a one-panel task needs
  // no min (whose symbolic form the write-conflict check cannot bound).
  auto live = [](int64_t panels, Expr left) {
    return panels == 1 ? intImm(1) : simplify(binary(BinOp::Min, intImm(panels), left));
  };
  Expr liveRows = live(t.mc / t.mr, ceilDiv(sub(iv.extent, rowBase), intImm(t.mr)));
  Expr liveCols = live(t.nc / t.nr, ceilDiv(sub(jv.extent, colBase), intImm(t.nr)));

  auto [x, y] = contractionFactors(a, sum);
  Expr rowIdx = add(mul(loopVar(ir), intImm(t.mr)), loopVar(r));
  PackedOperand xp; // none when X is read in place
  Expr xv = substitute(substitute(x, batch), {{iv.name, add(rowBase, rowIdx)}, {kv.name, add(depthBase, loopVar(kk))}});
  if (!direct) {
    Expr aLive = simplify(binary(BinOp::Min, intImm(ka), sub(kv.extent, aBase)));
    PanelSpec xs{fresh("packed_" + x->tensor->name), t.mc / t.mr, ka, t.mr, iv.name, rowBase, kv.name, aBase,
                 liveRows, aLive, {fresh("p"), fresh("d"), fresh("w")}};
    xp = packPanels(substitute(x, batch), xs, loc);
    xv = loadPanel(xp, loopVar(ir), deepA ? add(mul(loopVar(kb), intImm(t.kc)), loopVar(kk)) : loopVar(kk), loopVar(r));
  }
  PanelSpec ys{fresh("packed_" + y->tensor->name), t.nc / t.nr, t.kc, t.nr, jv.name, colBase, kv.name, depthBase,
               liveCols, liveDepth, {fresh("p"), fresh("d"), fresh("w")}};
  PackedOperand yp = packPanels(substitute(y, batch), ys, loc);
  bool xFirst = sameExpr(sum->args[0]->args[0], x);
  Expr colIdx = add(mul(loopVar(jr), intImm(t.nr)), loopVar(jj));

  // The tasks, reading Y's panels through `yv` (a load of the panel
  // element for jr, kk, jj) and packing them first with `yCopy` (if any).
  // `step`: the prefetches each k step issues before the tile.
  auto tasks = [&](const Expr &yv, const MStmtPtr &yAlloc, const MStmtPtr &yCopy, std::vector<MStmtPtr> step) {
    // The register tile: T[.., r, jj] += Xp[ir, kk, r] * Yp[jr, kk, jj].
    MStmtPtr fma = mStore(a.target, outIndex(rowIdx, colIdx), xFirst ? mul(xv, yv) : mul(yv, xv), AccumOp::Add, loc);
    auto overTile = [&](MStmtPtr store) {
      return mMapFor({r, jj}, MappingAtom::Kind::Repeat, {intImm(t.mr), intImm(t.nr)}, std::nullopt, store, loc);
    };
    MStmtPtr tile = overTile(fma);
    step.push_back(tile);
    MStmtPtr kLoop = seqFor(kk, liveDepth, step.size() == 1 ? tile : mBlock(step, loc), loc);
    // The first depth block's tiles start from zero: the register tile then
    // keeps its accumulators from a constant (x86: tileStart) and
    // never reads C, where zeroing the task's output first cost a pass over
    // it (28% of a 4096 x 64 x 4096 matmul on one core, in memset). Only
    // the zeroing is conditional, not a copy of the k loop: the x86 tile
    // runs once and picks its stores after the loop, which cut a matmul's
    // code from 112 to 78 KB (linalg.tk 255 -> 180 KB).
    MStmtPtr zero = overTile(mStore(a.target, outIndex(rowIdx, colIdx), floatImm(0, a.target->dtype), AccumOp::None, loc));
    Expr first = binary(BinOp::EQ, loopVar(kb), intImm(0));
    if (deepA) first = conjoin(binary(BinOp::EQ, loopVar(kaV), intImm(0)), first);
    MStmtPtr init = zero;
    // Not with an epilogue: it reads the tile back right after.
    if (t.streamBytes > 0 && sum == a.value) {
      // With a single k block the first block's tile is the only writer
      // of its elements; a large output then bypasses the caches.
      auto streamed = std::make_shared<MStmt>(*zero->body);
      streamed->stream = true;
      Expr onlyBlock = binary(BinOp::LE, kv.extent, intImm(t.kc));
      Expr bytes = intImm(scalarTypeBytes(a.target->dtype));
      for (const Expr &d : a.target->shape) bytes = mul(bytes, d);
      Expr large = binary(BinOp::GE, bytes, intImm(t.streamBytes));
      init = versions(conjoin(onlyBlock, large), overTile(streamed), zero, loc);
    }
    MStmtPtr rowPanel = mBlock({mIf(first, init, nullptr, loc), kLoop}, loc);
    // An epilogue `select` that drops the sum over a whole register tile
    // (a triangular product's upper half): that tile is not computed.
    Expr tileRow = simplify(add(rowBase, mul(loopVar(ir), intImm(t.mr))));
    Expr tileCol = simplify(add(colBase, mul(loopVar(jr), intImm(t.nr))));
    if (Expr needed = sumNeededInBox(a, sum, tileRow, t.mr, tileCol, t.nr);
        needed && !(needed->kind == ExprKind::BoolImm && needed->intValue))
      rowPanel = mIf(needed, rowPanel, nullptr, loc);
    // ir inside jr: one B micro-panel (kc x nr, sized for L1) serves every
    // row panel of the task before the next is touched.
    MStmtPtr compute = seqFor(jr, liveCols, seqFor(ir, liveRows, rowPanel, loc), loc);
    std::vector<MStmtPtr> perBlock{compute};
    if (!deepA && xp.copy) perBlock.insert(perBlock.begin(), xp.copy);
    if (yCopy) perBlock.insert(perBlock.begin(), yCopy);
    MStmtPtr kBlocks;
    // At least one block of each, so that an empty reduction (K = 0) still
    // runs the first block's tiles, which store the zeros.
    auto atLeastOne = [](Expr e) { return simplify(binary(BinOp::Max, intImm(1), e)); };
    if (deepA) {
      Expr subBlocks = atLeastOne(binary(BinOp::Min, intImm(ka / t.kc), ceilDiv(sub(kv.extent, aBase), intImm(t.kc))));
      kBlocks = seqFor(kaV, atLeastOne(ceilDiv(kv.extent, intImm(ka))),
                       mBlock({xp.copy, seqFor(kb, subBlocks, mBlock(perBlock, loc), loc)}, loc), loc);
    } else {
      kBlocks = seqFor(kb, atLeastOne(ceilDiv(kv.extent, intImm(t.kc))), mBlock(perBlock, loc), loc);
    }
    std::vector<MStmtPtr> task{kBlocks};
    if (sum != a.value) {
      // The epilogue, over the task's tile while it is in this core's caches.
      std::string er = fresh("er"), ec = fresh("ec");
      Expr rows = simplify(binary(BinOp::Min, intImm(t.mc), sub(iv.extent, rowBase)));
      Expr cols = simplify(binary(BinOp::Min, intImm(t.nc), sub(jv.extent, colBase)));
      std::vector<Expr> idx = outIndex(loopVar(er), loopVar(ec));
      MStmtPtr apply = epilogueStore(a, sum, idx, idx[rank - 2], idx[rank - 1]);
      task.push_back(seqFor(er, rows, seqFor(ec, cols, apply, loc), loc));
    }
    if (yAlloc) task.insert(task.begin(), yAlloc);
    if (xp.alloc) task.insert(task.begin(), xp.alloc);
    return mMapFor(workers, MappingAtom::Kind::Spatial, spatial, WorkerKind::Cores, mBlock(task, loc), loc);
  };
  // The per-task copy of each block of Y stalls on DRAM with no FMA
  // running (half of a 16 x 4096 x 4096 run): the tiles fetch the next
  // block as they go. Not in the one-panel version: its one kd-deep block
  // of Y usually covers K, and the prefetch's registers made its tiles of
  // strided rows spill.
  std::vector<MStmtPtr> ahead;
  if (!direct)
    ahead = nextBlockPrefetches(substitute(y, batch), jv, kv, add(add(depthBase, intImm(t.kc)), loopVar(kk)),
                                add(colBase, mul(loopVar(jr), intImm(t.nr))), loopVar(ir), t.nr, loc);
  MStmtPtr perTask = tasks(loadPanel(yp, loopVar(jr), loopVar(kk), loopVar(jj)), yp.alloc, yp.copy, ahead);

  // With more than one row task per column block, every one of them would
  // pack the same kc x nc blocks of Y again (M / mc times in all). Y is
  // then packed once per call, in parallel, into whole panels shared by all
  // tasks: S[b.., panel, k, lane] with the batch indices Y depends on. A
  // task reads its kc x nr micro-panels there, contiguous and cache-line
  // aligned, as it read its own copy.
  std::vector<std::string> sWorkers;
  std::vector<Expr> sSpatial, sLead, sShape;
  for (size_t d = 0; d + 2 < rank; ++d)
    if (mentionsVar(y, a.vars[d].name)) {
      sWorkers.push_back(a.vars[d].name);
      sSpatial.push_back(a.vars[d].extent);
      sLead.push_back(loopVar(a.vars[d].name));
    }
  Expr panels = simplify(ceilDiv(jv.extent, intImm(t.nr)));
  sShape = sSpatial;
  sShape.insert(sShape.end(), {panels, kv.extent, intImm(t.nr)});
  TensorPtr shared = scratchTensor(fresh("shared_" + y->tensor->name), y->type, sShape, Scope::Global, loc);
  std::string sp = fresh("sp"), sk = fresh("sk"), sd = fresh("sd"), sw = fresh("sw");
  Expr sDepth = add(mul(loopVar(sk), intImm(t.kc)), loopVar(sd));
  std::vector<Expr> sIdx = sLead;
  sIdx.insert(sIdx.end(), {loopVar(sp), sDepth, loopVar(sw)});
  Expr sValue = substitute(substitute(y, batch), {{jv.name, add(mul(loopVar(sp), intImm(t.nr)), loopVar(sw))}, {kv.name, sDepth}});
  MStmtPtr sRow = mMapFor({sw}, MappingAtom::Kind::Repeat, {intImm(t.nr)}, std::nullopt,
                          mStore(shared, sIdx, sValue, AccumOp::None, loc), loc);
  Expr sLive = simplify(binary(BinOp::Min, intImm(t.kc), sub(kv.extent, mul(loopVar(sk), intImm(t.kc)))));
  sWorkers.insert(sWorkers.end(), {sp, sk});
  sSpatial.insert(sSpatial.end(), {panels, simplify(ceilDiv(kv.extent, intImm(t.kc)))});
  MStmtPtr sPack = mMapFor(sWorkers, MappingAtom::Kind::Spatial, sSpatial, WorkerKind::Cores,
                           seqFor(sd, sLive, sRow, loc), loc);
  Expr panel = simplify(add(mul(loopVar(bj), intImm(t.nc / t.nr)), loopVar(jr)));
  Expr depth = simplify(add(depthBase, loopVar(kk)));
  std::vector<Expr> yIdx = sLead;
  yIdx.insert(yIdx.end(), {panel, depth, loopVar(jj)});
  // Row panel 0 reads each micro-panel of the shared copy from memory:
  // the tiles fetch the next one as they go (2048^3: +3 to +9%).
  std::vector<MStmtPtr> sAhead;
  if (!direct) sAhead = nextPanelPrefetches(shared, sLead, panel, depth, loopVar(ir), t.nr, loc);
  MStmtPtr sharedTasks = mBlock({mAlloc(shared, loc), sPack, tasks(load(shared, yIdx), nullptr, nullptr, sAhead)}, loc);

  return versions(binary(BinOp::GT, iv.extent, intImm(t.mc)), sharedTasks, perTask, loc);
}

} // namespace

KernelPtr constructSchedule(const OpPtr &op, const ContractionTiles &t) {
  std::string why;
  if (!constructScheduleApplies(*op, &why)) throw InternalError("constructSchedule: " + why);
  const Assign &a = op->body[0];
  FreshNames fresh(*op, a);
  MStmtPtr body = contractionBody(*op, t, false, fresh);
  // One column panel (N <= nr): each element of X serves one register tile
  // only, so packing it buys no reuse. The tasks read X in place in runs of
  // kd, a whole row of X for most K, which the prefetcher follows; Y's
  // kd x nr panel stays in L2. A constant N > nr needs no such version.
  Expr onePanel = simplify(binary(BinOp::LE, a.vars.back().extent, intImm(t.nr)));
  MStmtPtr direct;
  if (t.kd > 0 && (onePanel->kind != ExprKind::BoolImm || onePanel->intValue)) {
    ContractionTiles d = t;
    d.kc = d.ka = t.kd;
    d.nc = t.nr;
    direct = contractionBody(*op, d, true, fresh);
  }
  // One row: Y read in place (ConstructRowVector.h), 4 tiles wide. Against
  // the packed kernels (2 threads, Zen 5): 1 x 2048 x 1000 5.6 -> 51.6
  // GFLOP/s; for N <= nr the one-panel version stays (7.0 vs 5.0 GFLOP/s).
  Expr oneRow = simplify(binary(BinOp::EQ, a.vars[a.vars.size() - 2].extent, intImm(1)));
  if (oneRow->kind != ExprKind::BoolImm || oneRow->intValue) {
    Expr sum = contractionSum(a);
    auto [x, y] = contractionFactors(a, sum);
    body = versions(oneRow, rowVectorBody(a, sum, x, y, 4 * t.nr, fresh), body, a.loc);
  }
  if (direct) body = versions(onePanel, direct, body, a.loc);
  return synthesizedKernel(op, TargetFamily::Cpu, mBlock({body}, op->loc));
}

} // namespace tk
