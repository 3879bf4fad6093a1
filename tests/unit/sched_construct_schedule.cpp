// ConstructSchedule and PackOperand: the blocking read off Gensor's states
// (and chosen by measurement), and the packed, blocked kernel run on shapes that leave
// partial register tiles, panels and k blocks, against the op's meaning.
#include "sched_build.h"
#include "sched_eval.h"
#include "scheduler/cpu/ConstructSchedule.h"
#include "scheduler/cpu/ContractionSpace.h"
#include "scheduler/cpu/PackOperand.h"

#include <doctest/doctest.h>

#include <sstream>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

// The x86 AVX-512 and AVX2 instruction sets as their backend resolves them.
const TargetDesc kAvx512{ir::TargetFamily::Cpu, 512, 32};
const TargetDesc kAvx2{ir::TargetFamily::Cpu, 256, 16};

namespace {

construct::HardwareDesc cpu(int64_t l1, int64_t l2) {
  construct::HardwareDesc hw;
  hw.units = 2;
  construct::MemLevel dram, c2, c1, regs;
  dram.name = "dram";
  c2.name = "l2";
  c2.capacity = l2;
  c1.name = "l1";
  c1.capacity = l1;
  regs.name = "registers";
  hw.levels = {dram, c2, c1, regs};
  return hw;
}

double value(const std::string &name, size_t i) { return double((i * 5 + name[0]) % 13) - 6; }

} // namespace

TEST_CASE("construct schedule: the capacity rule sizes the micro-kernel from the register file and L2") {
  construct::HardwareDesc hw = cpu(48 << 10, 1 << 20);
  ContractionTiles t = chooseContractionTiles(hw, kAvx512, 4);
  CHECK(t.mr == 6);  // 6 x 4 zmm accumulators + 4 operands + 1 broadcast = 29; 7 rows would need 33
  CHECK(t.nr == 64); // four vectors: a power of two
  CHECK(t.kc == 256); // B's micro-panel 256 x 64 f32 = 64 KiB = 1/16 of L2 (at most 256)
  CHECK(t.mc == 126); // at most 128 rows, in whole 6-row tiles
  CHECK(t.nc == 256); // 4 register tiles; 256 x 256 f32 = 256 KiB = a quarter of L2
  CHECK(t.ka == 512); // A packed 2 k blocks deep: 126 x 512 f32 = 252 KiB; 4 would not fit
  CHECK(t.kd == 2048); // one-panel version: B's 2048 x 64 f32 panel = 512 KiB = half of L2
  CHECK(t.streamBytes == 2 << 20); // outputs past both units' 1 MiB L2s stream
  t = chooseContractionTiles(hw, kAvx2, 4);
  CHECK(t.nr == 32); // 16 ymm: 2 x 4 accumulators + 4 + 1 = 13
  CHECK(t.mr == 2);
  CHECK(t.kc == 256); // 256 x 32 f32 = 32 KiB <= 1/16 of 1 MiB; 512 is past the cap
  t = chooseContractionTiles(cpu(32 << 10, 256 << 10), kAvx512, 8);
  CHECK(t.nr == 32); // f64: 8 lanes x 4
  CHECK(t.kc == 64);  // 64 x 32 f64 = 16 KiB = 1/16 of 256 KiB
  CHECK(t.mc == 126); // a quarter of 256 KiB holds 128 x 64 doubles: 21 whole 6-row tiles
  CHECK(t.nc == 128); // ... and only 128 columns: four whole 32-column tiles
  CHECK(t.ka == 64);  // 126 x 128 doubles would not fit: A is packed one k block deep
  CHECK(t.kd == 512); // 512 x 32 doubles = 128 KiB = half of 256 KiB
}

TEST_CASE("construct schedule: a Gensor state gives the task tile, in whole register tiles") {
  // Levels: 0 dram, 1 l2 (the unit level), 2 l1, 3 registers; dims i, j, k.
  construct::Space space(construct::buildLoopNest(*matmulOp(), {{"M", 512}, {"K", 512}, {"N", 512}}),
                         cpu(48 << 10, 1 << 20));
  construct::ETIR s = space.initial();
  s.tile[1] = {100, 200, 256};
  s.tile[2] = {16, 64, 64};
  s.tile[3] = {8, 40, 1};
  ContractionTiles t = contractionTilesFromState(space, s, kAvx512);
  ContractionTiles rule = chooseContractionTiles(space.hw(), kAvx512, 4);
  CHECK(t.mr == rule.mr);
  CHECK(t.nr == rule.nr);
  CHECK(t.kc == rule.kc);
  CHECK(t.mc == 102); // 100 rounded up to whole 6-row tiles
  CHECK(t.nc == 256); // 200 rounded up to 64-column tiles
  s.tile[1] = {4096, 4096, 512};
  t = contractionTilesFromState(space, s, kAvx512);
  CHECK(t.mc * t.kc * 4 <= (1 << 20) / 4); // packed panels within a quarter of L2
  CHECK(t.nc * t.kc * 4 <= (1 << 20) / 4);
  CHECK(t.mc % t.mr == 0);
  CHECK(t.nc % t.nr == 0);
}

TEST_CASE("construct schedule: candidates are the capacity rule, then the Gensor ranking") {
  construct::ConstructOptions opts;
  opts.hw = cpu(48 << 10, 1 << 20);
  opts.hw.vectorBits = 512;
  opts.hw.gflopsF32 = 100;
  for (construct::MemLevel &l : opts.hw.levels) l.bandwidth = 100, l.latency = 1, l.transaction = 64;
  opts.hw.levels[0].capacity = int64_t(1) << 34;
  opts.hw.levels[3].capacity = 2048;
  opts.shapes = {{"M", 1024}, {"K", 1024}, {"N", 1024}};
  std::vector<ContractionTiles> c = contractionCandidates(*matmulOp(), opts, kAvx512, 4);
  REQUIRE(!c.empty());
  CHECK(c.size() <= 4);
  construct::Space space(construct::buildLoopNest(*matmulOp(), opts.shapes), opts.hw);
  construct::GensorResult g = construct::runGensor(space, opts.gensor);
  REQUIRE(!g.ranked.empty());
  CHECK(c.front() == chooseContractionTiles(opts.hw, kAvx512, 4));
  if (c.size() >= 2) CHECK(c[1] == contractionTilesFromState(space, g.ranked.front().state, kAvx512));
  for (size_t a = 0; a < c.size(); ++a)
    for (size_t b = a + 1; b < c.size(); ++b) CHECK(!(c[a] == c[b]));
  // --rank=measure: the fastest by the timing function wins; ties keep the
  // estimate's order.
  size_t calls = 0;
  opts.measure = [&](const KernelPtr &) { return costmodel::Latency{++calls == 2 ? 0.5 : 1.0, 5, 0}; };
  opts.measureTopK = 4;
  KernelPtr k = constructContraction(matmulOp(), opts, kAvx512);
  CHECK(calls == (c.size() > 1 ? c.size() : 0));
  if (c.size() >= 2) CHECK(printKernel(*k) == printKernel(*constructSchedule(matmulOp(), c[1])));
  opts.measure = [](const KernelPtr &) { return costmodel::Latency{1.0, 5, 0}; };
  CHECK(printKernel(*constructContraction(matmulOp(), opts, kAvx512)) == printKernel(*constructSchedule(matmulOp(), c[0])));
}

TEST_CASE("construct schedule: --rank=model builds the blocking the model scores highest, and records what it times") {
  construct::ConstructOptions opts;
  opts.hw = cpu(48 << 10, 1 << 20);
  opts.shapes = {{"M", 300}, {"K", 200}, {"N", 500}};
  // A model that wants register tiles two vectors wide, then the smallest
  // task tiles: no rule or Gensor state has them, random draws do.
  std::vector<ContractionTiles> seen;
  opts.rankByModel = [&](const std::vector<costmodel::DecisionSequence> &seqs) {
    std::vector<double> score;
    for (const auto &seq : seqs) {
      auto t = contractionTilesOf(seq);
      REQUIRE(t);
      seen.push_back(*t);
      score.push_back((t->nr == 32 ? 1e6 : 0) - double(t->mc * t->nc));
    }
    return score;
  };
  opts.modelCandidates = 40;
  std::ostringstream trace;
  opts.gensor.trace = &trace;
  KernelPtr k = constructContraction(matmulOp(), opts, kAvx512);
  REQUIRE(seen.size() == 40);
  CHECK(seen.front() == chooseContractionTiles(opts.hw, kAvx512, 4)); // the rule is a candidate
  const ContractionTiles *want = nullptr;
  for (const ContractionTiles &t : seen) {
    CHECK(contractionTilesLegal(t, kAvx512, 4));
    if (t.nr == 32 && (!want || t.mc * t.nc < want->mc * want->nc)) want = &t;
  }
  REQUIRE(want); // 14 of the 59 register tiles a draw picks from are two vectors wide
  CHECK(printKernel(*k) == printKernel(*constructSchedule(matmulOp(), *want)));
  CHECK_MESSAGE(trace.str().find("// cost model: 40 blockings of matmul scored, best first:") != std::string::npos,
                trace.str());
  // --measure-top=2 with --records-out: the model's two best are timed
  // (the second faster here) and both recorded with their decisions.
  std::vector<std::string> recorded;
  opts.measure = [n = 0](const KernelPtr &) mutable { return costmodel::Latency{++n == 2 ? 0.5 : 1.0, 5, 0}; };
  opts.measureTopK = 2;
  opts.recordMeasured = [&](const Op &op, const costmodel::DecisionSequence &seq, const std::string &origin,
                            const costmodel::Latency &lat) {
    recorded.push_back(op.name + " " + origin + " " + std::to_string(lat.median));
    CHECK(contractionTilesOf(seq));
  };
  seen.clear();
  KernelPtr timed = constructContraction(matmulOp(), opts, kAvx512);
  CHECK(recorded == std::vector<std::string>{"matmul random 1.000000", "matmul random 0.500000"});
  CHECK(printKernel(*timed) != printKernel(*k));
}

TEST_CASE("construct schedule: applies to matmul, not to other statements") {
  std::string why;
  CHECK(constructScheduleApplies(*matmulOp(), &why));
  OpPtr two = std::make_shared<Op>(*matmulOp());
  two->body.push_back(two->body[0]);
  CHECK(!constructScheduleApplies(*two, &why));
  CHECK(why == "the op has more than one statement");
  // A factor that ignores k (here B[0, j]) scales the sum; it is not an
  // operand to pack (such a statement crashed the constructor, seed 92303).
  OpPtr scaled = std::make_shared<Op>(*matmulOp());
  const Expr &prod = scaled->body[0].value->args[0];
  Expr b0 = load(prod->args[1]->tensor, {ci(0), idx("j")});
  scaled->body[0].value = reduce(ReduceOp::Sum, scaled->body[0].value->rvars, binary(BinOp::Mul, prod->args[0], b0));
  CHECK(!constructScheduleApplies(*scaled, &why));
  CHECK(why == "a factor does not depend on the reduction variable");
}

TEST_CASE("construct schedule: an epilogue around the sum runs over each task's tile, never streamed") {
  // C = 2 * sum(k) ..: the contraction into C, then C[..] = 2 * C[..] over
  // the task's rows and columns after its k blocks; with streamBytes set,
  // no store streams (the epilogue reads the tile back).
  OpPtr scaled = std::make_shared<Op>(*matmulOp());
  Expr sum = scaled->body[0].value;
  scaled->body[0].value = binary(BinOp::Mul, floatImm(2.0), sum);
  std::string why;
  CHECK_MESSAGE(constructScheduleApplies(*scaled, &why), why);
  ContractionTiles t{2, 4, 3, 4, 8, 0, 0, 64};
  std::string text = printKernel(*constructSchedule(scaled, t));
  CHECK_MESSAGE(text.find("for er in 0..min(4, M - bi * 4) {") != std::string::npos, text);
  CHECK(text.find("C[bi * 4 + er, bj * 8 + ec] = 2.0 * C[bi * 4 + er, bj * 8 + ec];") != std::string::npos);
  CHECK(text.find("stream") == std::string::npos);
  // The value around the sum may not read the output (the sum overwrites
  // it), nor hold a second reduction.
  OpPtr reads = std::make_shared<Op>(*matmulOp());
  const TensorPtr &C = reads->body[0].target;
  reads->body[0].value = binary(BinOp::Add, load(C, {idx("i"), idx("j")}), sum);
  CHECK(!constructScheduleApplies(*reads, &why));
  CHECK(why == "the value around the sum reads the output, which the sum overwrites");
  // A select on the indices skips the register tiles it drops whole: with
  // the sum where j <= i, a tile is computed unless its lowest j exceeds
  // its highest i. A condition not linear in i and j skips nothing.
  OpPtr tri = std::make_shared<Op>(*matmulOp());
  tri->body[0].value = select(binary(BinOp::LE, idx("j"), idx("i")), sum, floatImm(0.0));
  text = printKernel(*constructSchedule(tri, t));
  CHECK_MESSAGE(text.find("if (bi * -4 + bj * 8 - ir * 2 + jr * 4 - 1 <= 0) {") != std::string::npos, text);
  tri->body[0].value = select(binary(BinOp::LE, binary(BinOp::Mul, idx("i"), idx("j")), ci(5)), sum, floatImm(0.0));
  CHECK(printKernel(*constructSchedule(tri, t)).find("- ir * 2") == std::string::npos);
  OpPtr twoSums = std::make_shared<Op>(*matmulOp());
  twoSums->body[0].value = binary(BinOp::Add, sum, std::make_shared<ExprNode>(*sum)); // two distinct sums
  CHECK(!constructScheduleApplies(*twoSums, &why));
  CHECK(why == "the value is not a sum over one reduction variable");
}

TEST_CASE("construct schedule: packed blocked matmul is exact on ragged shapes") {
  ContractionTiles t{2, 4, 3, 4, 8};
  KernelPtr k = constructSchedule(matmulOp(), t);
  CHECK(printKernel(*k).find("local packed_A: f32[2, 3, 2];") != std::string::npos);
  CHECK(printKernel(*k).find("local packed_B: f32[2, 3, 4];") != std::string::npos);
  LoweredFunc f = lowerOne(k->op, k);
  for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{1, 1, 1}, {5, 7, 3}, {13, 17, 11}, {4, 3, 8}})
    checkMatmul(f, M, K, N, value);
}

TEST_CASE("construct schedule: several row tasks share one packed copy of B, one task packs its own") {
  // Each row task would otherwise pack the same kc x nc blocks of B again:
  // with M > mc, B is packed once per call, in parallel over panels and k
  // blocks, into a global buffer of whole panels that every task reads.
  ContractionTiles t{2, 4, 3, 4, 8};
  KernelPtr k = constructSchedule(matmulOp(), t);
  std::string text = printKernel(*k);
  CHECK_MESSAGE(text.find("if (M > 4) {") != std::string::npos, text);
  CHECK(text.find("global shared_B: f32[cdiv(N, 4), K, 4];") != std::string::npos);
  CHECK(text.find("shared_B[sp, sk * 3 + sd, sw] = B[sk * 3 + sd, sp * 4 + sw];") != std::string::npos);
  CHECK(text.find("packed_A[ir, kk, r] * shared_B[bj * 2 + jr, kb * 3 + kk, jj]") != std::string::npos);
  CHECK(text.find("packed_A[ir, kk, r] * packed_B[jr, kk, jj]") != std::string::npos);
  LoweredFunc f = lowerOne(k->op, k);
  // Rows 5 and 9 take the shared copy (with a partial last row task),
  // 3 and 4 the per-task one; columns and depth leave partial panels and
  // k blocks in both.
  for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{5, 7, 9}, {9, 3, 4}, {3, 7, 9}, {4, 1, 13}})
    checkMatmul(f, M, K, N, value);
  // A constant M picks one version at compile time.
  OpPtr fixed = std::make_shared<Op>(*matmulOp());
  fixed->body[0].vars[0].extent = ci(12);
  std::string one = printKernel(*constructSchedule(fixed, t));
  CHECK(one.find("if (M") == std::string::npos);
  CHECK(one.find("global shared_B") != std::string::npos);
  CHECK(one.find("packed_B") == std::string::npos);
}

TEST_CASE("construct schedule: A packed several k blocks deep is exact on ragged shapes") {
  // ka = 3 kc: A's block is packed once per three k blocks of B, and the
  // tile reads it at depth kb * kc + kk; K leaves partial A blocks and
  // partial k blocks within them, in both the shared-B and per-task versions.
  // K = 0 is allowed (no `where K >= 1`): C is then all zeros, stored by
  // the first k block's tiles.
  ContractionTiles t{2, 4, 2, 4, 8, 6};
  OpPtr op = std::make_shared<Op>(*matmulOp());
  op->where.clear();
  KernelPtr k = constructSchedule(op, t);
  std::string text = printKernel(*k);
  CHECK_MESSAGE(text.find("local packed_A: f32[2, 6, 2];") != std::string::npos, text);
  CHECK(text.find("for kb in 0..max(1, min(3, cdiv(K - ka * 6, 2))) {") != std::string::npos);
  CHECK(text.find("if (ka == 0 && kb == 0) {") != std::string::npos);
  CHECK(text.find("packed_A[ir, kb * 2 + kk, r] * shared_B[bj * 2 + jr, ka * 6 + kb * 2 + kk, jj]") != std::string::npos);
  LoweredFunc f = lowerOne(k->op, k);
  for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{5, 13, 9}, {9, 6, 4}, {3, 7, 9}, {4, 1, 13}, {7, 12, 5}, {9, 0, 5}, {3, 0, 4}})
    checkMatmul(f, M, K, N, value);
}

TEST_CASE("construct schedule: with one column panel, A is read in place and the k blocks are kd deep") {
  // N <= nr: each element of A serves one register tile, so the one-panel
  // version reads it in place (no packed_A) in k blocks of kd = 6, with
  // ragged rows, columns and depth, K = 0, and both the shared-B (M > mc)
  // and per-task-B versions; N > nr takes the packed version.
  ContractionTiles t{2, 4, 2, 4, 8, 0, 6};
  OpPtr op = std::make_shared<Op>(*matmulOp());
  op->where.clear();
  KernelPtr k = constructSchedule(op, t);
  std::string text = printKernel(*k);
  CHECK_MESSAGE(text.find("if (N <= 4) {") != std::string::npos, text);
  CHECK(text.find("+= A[bi_1 * 4 + (ir_1 * 2 + r_1), kb_1 * 6 + kk_1] * shared_B_1[bj_1 + jr_1, kb_1 * 6 + kk_1, jj_1]") !=
        std::string::npos);
  CHECK(text.find("for kk_1 in 0..min(6, K - kb_1 * 6) {") != std::string::npos);
  CHECK(text.find("packed_A[ir, kk, r]") != std::string::npos);
  LoweredFunc f = lowerOne(k->op, k);
  for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{
           {1, 1, 1}, {5, 13, 3}, {9, 6, 4}, {3, 7, 4}, {4, 1, 2}, {7, 12, 1}, {9, 0, 3}, {3, 0, 4}, {5, 7, 9}})
    checkMatmul(f, M, K, N, value);
  // Without kd there is no such version.
  t.kd = 0;
  CHECK(printKernel(*constructSchedule(op, t)).find("if (N <=") == std::string::npos);
}

TEST_CASE("construct schedule: a single k block streams a large output, the others keep it cached") {
  // streamBytes = 64: outputs of 16 f32 elements and more whose K fits one
  // k block (K <= kc = 3) mark the first block's zeroing `stream` (the x86
  // tile's stores take the hint from it); the cached zeroing stays for the
  // rest. The k loop itself is not copied: one accumulating store per
  // version (shared B, per-task B). Exact on shapes on both sides of both
  // conditions, in both versions.
  ContractionTiles t{2, 4, 3, 4, 8, 0, 0, 64};
  KernelPtr k = constructSchedule(matmulOp(), t);
  std::string text = printKernel(*k);
  CHECK_MESSAGE(text.find("if (K <= 3 && M * 4 * N >= 64) {") != std::string::npos, text);
  CHECK(text.find("= 0.0 stream;") != std::string::npos);
  CHECK(text.find("* packed_B[jr, kk, jj] stream;") == std::string::npos);
  auto count = [&](const std::string &what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count("+= packed_A[ir, kk, r] * packed_B[jr, kk, jj];") == 1);
  CHECK(count("+= packed_A[ir, kk, r] * shared_B[") == 1);
  LoweredFunc f = lowerOne(k->op, k);
  CHECK(printLoweredFunc(f).find(" stream;") != std::string::npos);
  for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{5, 3, 9}, {9, 2, 4}, {3, 1, 5}, {2, 3, 4}, {9, 7, 5}, {3, 4, 13}})
    checkMatmul(f, M, K, N, value);
  // A constant K deeper than kc never streams; without streamBytes nothing does.
  OpPtr deep = std::make_shared<Op>(*matmulOp());
  deep->body[0].value = reduce(ReduceOp::Sum, {{"k", ci(7), {}}}, deep->body[0].value->args[0]);
  CHECK(printKernel(*constructSchedule(deep, t)).find("stream") == std::string::npos);
  t.streamBytes = 0;
  CHECK(printKernel(*constructSchedule(matmulOp(), t)).find("stream") == std::string::npos);
}

TEST_CASE("construct schedule: the tiles prefetch the block of B they read next") {
  // nr = 32 f32 columns = 2 cache lines per panel row: each k step of a
  // tile that packs its own B prefetches both lines of the next k block's
  // row; a tile reading the shared copy prefetches line ir % 2 of the same
  // row of the next micro-panel. B read transposed (B[j, k]) is not a run
  // of lines along a panel row: no prefetches of B itself. Exact on ragged
  // shapes, K = 1 included, in both versions.
  ContractionTiles t{2, 32, 3, 4, 64};
  KernelPtr k = constructSchedule(matmulOp(), t);
  std::string text = printKernel(*k);
  CHECK_MESSAGE(text.find("prefetch B[kb * 3 + kk + 3, bj * 64 + jr * 32];") != std::string::npos, text);
  CHECK(text.find("prefetch B[kb * 3 + kk + 3, bj * 64 + jr * 32 + 16];") != std::string::npos);
  CHECK(text.find("prefetch shared_B[bj * 2 + jr + 1, kb * 3 + kk, ir % 2 * 16];") != std::string::npos);
  LoweredFunc f = lowerOne(k->op, k);
  for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{3, 7, 40}, {4, 1, 33}, {2, 9, 64}, {9, 8, 70}})
    checkMatmul(f, M, K, N, value);
  OpPtr nt = std::make_shared<Op>(*matmulOp());
  TensorPtr bt = tensor("B", {sym("N"), sym("K")}, TensorRole::Input);
  nt->inputs[1].tensor = bt;
  nt->body[0].value = reduce(ReduceOp::Sum, {{"k", sym("K"), {}}},
                             binary(BinOp::Mul, load(nt->inputs[0].tensor, {idx("i"), idx("k")}), load(bt, {idx("j"), idx("k")})));
  std::string ntText = printKernel(*constructSchedule(nt, t));
  CHECK(ntText.find("prefetch B[") == std::string::npos);
  CHECK(ntText.find("prefetch shared_B[") != std::string::npos); // the packed copy is contiguous
}

TEST_CASE("pack operand: panels hold the operand with the panel and depth variables substituted") {
  OpPtr op = matmulOp();
  const Expr &b = op->body[0].value->args[0]->args[1]; // B[k, j]
  PanelSpec s{"Bp", 3, 2, 4, "j", lv("bj"), "k", lv("kb"), nullptr, nullptr, {"p", "d", "w"}};
  PackedOperand p = packPanels(b, s, {});
  CHECK(p.buffer->scope == Scope::Local);
  CHECK(p.buffer->shape.size() == 3);
  Kernel k;
  k.name = "show";
  k.op = op;
  k.body = mBlock({p.alloc, p.copy});
  std::string text = printKernel(k);
  CHECK(text.find("local Bp: f32[3, 2, 4];") != std::string::npos);
  CHECK(text.find("Bp[p, d, w] = B[d + kb, bj + p * 4 + w];") != std::string::npos);
  CHECK(printExpr(loadPanel(p, lv("jr"), lv("kk"), lv("jj"))) == "Bp[jr, kk, jj]");
}

TEST_CASE("construct schedule: whole row blocks pack A with a constant-trip copy") {
  // The A copy's row guard (a window condition of its innermost loop) has
  // the same bound as the rows of C the tile stores, so the tested copy
  // drops it instead of splitting the 4-row loop at run time.
  ContractionTiles t{4, 16, 8, 8, 32};
  KernelPtr k = constructSchedule(matmulOp(), t);
  LoweredFunc f = lowerOne(k->op, k);
  std::string text = printLoweredFunc(f);
  CHECK_MESSAGE(text.find("for w in 0..4 {\n"
                          "                  packed_A[p, d, w] = A[bi * 8 + p * 4 + w, d + kb * 8];\n") != std::string::npos,
                text);
  for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{8, 8, 32}, {9, 5, 17}, {3, 16, 40}})
    checkMatmul(f, M, K, N, value);
}

TEST_CASE("construct schedule: one row of output reads B in place, its epilogue after the sum") {
  // M == 1 (a vector times a matrix): tasks over blocks of 4 * nr columns,
  // no packed copy of B; exact with ragged column blocks, with and without
  // an epilogue, and the other versions still run for M > 1.
  ContractionTiles t{2, 4, 3, 4, 8};
  std::string text = printKernel(*constructSchedule(matmulOp(), t));
  CHECK_MESSAGE(text.find("if (M == 1) {\n    for (bj_1) in spatial(cdiv(N, 16)) on cores {") != std::string::npos, text);
  CHECK(text.find("C[0, bj_1 * 16 + jj_1] += A[0, kk_1] * B[kk_1, bj_1 * 16 + jj_1];") != std::string::npos);
  LoweredFunc f = lowerOne(matmulOp(), constructSchedule(matmulOp(), t));
  for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{1, 1, 1}, {1, 7, 37}, {1, 5, 16}, {2, 5, 37}})
    checkMatmul(f, M, K, N, value);
  OpPtr scaled = std::make_shared<Op>(*matmulOp());
  scaled->body[0].value = binary(BinOp::Mul, floatImm(2.0), scaled->body[0].value);
  LoweredFunc g = lowerOne(scaled, constructSchedule(scaled, t));
  LoopEval ev;
  ev.run(g, {{"M", 1}, {"K", 3}, {"N", 21}}, value);
  REQUIRE(ev.status == 0);
  for (int64_t j = 0; j < 21; ++j) {
    double want = 0;
    for (int64_t k = 0; k < 3; ++k) want += value("A", size_t(k)) * value("B", size_t(k * 21 + j));
    CHECK(ev.tensor(g.op->outputs[0])[size_t(j)] == 2 * want);
  }
}
