// Sunway broadcast of shared operands: LdmTiles' model of lockstep rounds
// (which inputs are shared, the bytes they move, how the cost model
// charges a broadcast), and the staged code: CPE 0's broadcast get
// between array barriers, which every CPE reaches alike; and the 8 x 8
// rounds with row broadcasts (an input with a box per CPE row is
// row-broadcast, one with a box per CPE column broadcast as the union of
// the 8 columns' boxes), the bound on a 1024^3 matmul's DMA bytes under
// 64 KiB of LDM (scheduler/sunway/LdmTiles, TileOutputs, LdmBox, LdmRewrite).
#include "sched_build.h"
#include "scheduler/construct/FillHoles.h"
#include "scheduler/sunway/LdmTiles.h"
#include "scheduler/sunway/SunwayCostModel.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::construct;

namespace {

HardwareDesc sw26010() { return schedtest::stdlibTarget("sw26010"); }

LoopNest matmulNest(int64_t m, int64_t k, int64_t n) {
  return buildLoopNest(*schedtest::matmulOp(), {{"M", m}, {"K", k}, {"N", n}});
}

// The matmul lowered for sunway at 1024^3, as loop IR.
std::string lowered(PipelineOptions::SunwayBroadcast broadcast) {
  schedtest::SunwayMatmul mm("sw26010", {{"M", 1024}, {"K", 1024}, {"N", 1024}});
  mm.options.sunwayBroadcast = broadcast;
  schedtest::DiagFixture fx;
  auto fs = lowerModule(mm.module, mm.options, fx.diags);
  REQUIRE(fs.size() == 1);
  return ir::printLoweredFunc(fs[0]);
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

} // namespace

TEST_CASE("sunway broadcast: an input is shared along the output dimensions it does not depend on") {
  LoopNest nest = matmulNest(256, 256, 256); // dims i, j, k; accesses C, A, B in some order
  for (const Access &a : nest.accesses) {
    if (a.tensor == "A") CHECK((sharesAlong(nest, a, 1) && !sharesAlong(nest, a, 0)));
    if (a.tensor == "B") CHECK((sharesAlong(nest, a, 0) && !sharesAlong(nest, a, 1)));
    if (a.tensor == "C") CHECK_FALSE(sharesAlong(nest, a, 0)); // written: never shared
    CHECK_FALSE(sharesAlong(nest, a, 2));                       // a reduction dimension
  }
}

TEST_CASE("sunway broadcast: lockstep along i reads B once per round and reduction block") {
  HardwareDesc hw = sw26010();
  LdmTiling chunks = costLdmTiling(matmulNest(256, 256, 256), hw, {64, 128, 16}, false),
            rounds = costLdmTiling(matmulNest(256, 256, 256), hw, {64, 128, 16}, false, 0);
  CHECK(rounds.spread == 0);
  // C once, A once per column tile (2); B per row tile (4) in chunks, but
  // once per round in lockstep: the 4 row tiles are one round, for each of
  // the 2 column tiles.
  CHECK(chunks.dmaBytes == 4.0 * 256 * 256 * (1 + 2 + 4));
  CHECK(rounds.dmaBytes == 4.0 * 256 * 256 * (1 + 2 + 1));
  // 16 reduction blocks x 2 rounds broadcasts, plus each tile's A blocks and C.
  CHECK(rounds.transfers == 8 * (16 + 1) + 2 * 16);
}

TEST_CASE("sunway broadcast: the cost model charges a broadcast to every CPE") {
  HardwareDesc hw = sw26010();
  const MemLevel &mem = *hw.levelFor(ir::Scope::Global);
  double share = mem.bandwidth / hw.units;
  // CPE 0 issues 10 broadcasts of 64 KB in all and computes; the others compute.
  std::vector<CpeWork> cpes(64, CpeWork{0, 0, 1e6});
  cpes[0].transfers = cpes[0].bcastTransfers = 10;
  cpes[0].bytes = cpes[0].bcastBytes = 65536;
  for (CpeWork &w : cpes) w.barriers = 20;
  // Each CPE: 10 transfers and 20 barriers of latency, its 1/64 of the bytes.
  CpeWork each{10, 65536.0 / 64, 1e6};
  each.barriers = 20;
  CHECK(spawnSeconds(cpes, hw) == doctest::Approx(cpeSeconds(each, hw)));
  CHECK(cpeSeconds(each, hw) == doctest::Approx((30 * mem.latency + 1024 / share + 1e6 / hw.gflopsF32) * 1e-9));
}

TEST_CASE("sunway broadcast: the fastest 1024^3 matmul runs in lockstep and moves fewer bytes") {
  HardwareDesc hw = sw26010();
  LoopNest nest = matmulNest(1024, 1024, 1024);
  LdmTiling off = fastestLdmTiling(nest, hw, 56 * 1024, true, false),
            on = fastestLdmTiling(nest, hw, 56 * 1024, true, true);
  CHECK(off.spread == -1);
  CHECK(on.spread >= 0);
  CHECK(on.seconds < off.seconds);
  CHECK(on.dmaBytes * 2 < off.dmaBytes);
  CHECK(on.ldmBytes <= 56 * 1024);
}

TEST_CASE("sunway broadcast: CPE 0 gets the shared box for all, between array barriers") {
  std::string on = lowered(PipelineOptions::SunwayBroadcast::On), off = lowered(PipelineOptions::SunwayBroadcast::Off);
  CHECK(count(off, "broadcast") == 0);
  CHECK(count(off, "barrier") == 0);
  // The CPE loop is the plain spatial(64); the rounds a serial loop in it.
  CHECK(on.find("parallel for cpe in 0..64 on cpes") != std::string::npos);
  // Double-buffered: the first box before the reduction blocks, the next
  // one ahead; CPE 0 also waits for them, then a barrier tells the others.
  size_t get = on.find("dma_get broadcast async B[");
  REQUIRE(get != std::string::npos);
  // Issued by CPE 0 only, after a barrier every CPE passes.
  size_t guard = on.rfind("if (cpe == 0)", get);
  REQUIRE(guard != std::string::npos);
  CHECK(on.rfind("barrier;", guard) != std::string::npos);
  CHECK(count(on, "dma_get broadcast async B[") == 2);
  size_t wait = on.find("dma_wait B.ldm;");
  REQUIRE(wait != std::string::npos);
  CHECK(on.rfind("if (cpe == 0)", wait) > on.rfind("dma_wait A.ldm;", wait));
  CHECK(on.find("barrier;", wait) < on.find("dma_get broadcast async B[B.next", wait));
  // A, which depends on the CPE's rows, is fetched by each CPE itself.
  CHECK(on.find("dma_get broadcast async A[") == std::string::npos);
  CHECK(on.find("dma_get async A[") != std::string::npos);
}

constexpr double kMatrix = 4.0 * 1024 * 1024; // one 1024 x 1024 f32 matrix

TEST_CASE("sunway rows: 8 x 8 rounds row-broadcast A and broadcast the union of B's column boxes") {
  HardwareDesc hw = sw26010();
  // CPE rows along i (A's box per row), columns along j (B's union of 8).
  LdmTiling t = costLdmTiling(matmulNest(1024, 1024, 1024), hw, {128, 64, 4}, true, 1, 0);
  CHECK((t.spread == 1 && t.rows == 0));
  // A round is 1024 x 512 of C: A read twice, B once, C written once.
  CHECK(t.dmaBytes == 4 * kMatrix);
  // C 128 x 64, A 128 x 4 and B 4 x 512 (the 8 columns), inputs twice.
  CHECK(t.ldmBytes == 4.0 * (128 * 64 + 2 * 128 * 4 + 2 * 4 * 512) + 5 * 32);
  // Per round (2) and block (256): one broadcast of B, 8 row broadcasts of
  // A (128 rows of 16 bytes: one strided transfer each); each CPE puts its C.
  CHECK(t.transfers == 2 * 256 * (1 + 8) + 64 * 2);
}

TEST_CASE("sunway rows: a row broadcast waits only its row and shares the bandwidth with the other rows") {
  HardwareDesc hw = sw26010();
  const MemLevel &mem = *hw.levelFor(ir::Scope::Global);
  double share = mem.bandwidth / hw.units;
  // CPE 8 (row 1) broadcasts 64 KiB to its row; nobody computes.
  std::vector<CpeWork> cpes(64);
  CpeWork &w = cpes[8];
  w.transfers = w.bcastTransfers = w.rowTransfers = 1;
  w.bytes = w.bcastBytes = w.rowBytes = 65536;
  CpeWork row{1, 65536.0 / 8, 0};
  CHECK(cpeSeconds(row, hw) == doctest::Approx((mem.latency + 8192 / share) * 1e-9));
  CHECK(spawnSeconds(cpes, hw) == doctest::Approx(cpeSeconds(row, hw)));
  // The same bytes broadcast to all 64 take an eighth of that bandwidth time.
  w.rowTransfers = w.rowBytes = 0;
  CHECK(spawnSeconds(cpes, hw) == doctest::Approx((mem.latency + 1024 / share) * 1e-9));
}

TEST_CASE("sunway rows: no tiling of a 1024^3 f32 matmul in 56 KiB moves fewer than 4 matrices") {
  // Every C tile stays in LDM across the reduction, and the 64 CPEs' LDM
  // (4 MiB) cannot hold all of C: at least two rounds, one operand read
  // twice. Checked over every power-of-two tiling and every arrangement.
  HardwareDesc hw = sw26010();
  LoopNest nest = matmulNest(1024, 1024, 1024);
  double fewest = 1e300;
  std::vector<std::pair<int, int>> modes{{-1, -1}, {0, -1}, {1, -1}, {0, 1}, {1, 0}};
  for (int64_t i = 1; i <= 1024; i *= 2)
    for (int64_t j = 1; j <= 1024; j *= 2)
      for (int64_t k = 1; k <= 1024; k *= 2)
        for (auto [s, r] : modes) {
          LdmTiling t = costLdmTiling(nest, hw, {i, j, k}, false, s, r);
          if (t.ldmBytes <= 56 * 1024) fewest = std::min(fewest, t.dmaBytes);
        }
  CHECK(fewest == 4 * kMatrix); // DMA efficiency 3/4 at best
  // Double-buffered, the 8 x 8 rounds reach it; the modelled fastest
  // (64 lanes) moves more but passes half the barriers.
  LdmTiling rows = fastestLdmTiling(nest, hw, 56 * 1024, true, true, true),
            best = fastestLdmTiling(nest, hw, 56 * 1024, true, true);
  CHECK(rows.rows >= 0);
  CHECK(rows.dmaBytes == 4 * kMatrix);
  CHECK(rows.ldmBytes <= 56 * 1024);
  CHECK(best.rows == -1);
  CHECK(best.seconds < rows.seconds);
}

TEST_CASE("sunway rows: the first CPE of each row gets the row's box; CPE 0 the columns' union for all") {
  std::string rows = lowered(PipelineOptions::SunwayBroadcast::Rows);
  std::string all = lowered(PipelineOptions::SunwayBroadcast::On);
  CHECK(all.find("broadcast_row") == std::string::npos);
  CHECK(all.find("cpe % 8 == 0") == std::string::npos);
  // The 8 x 8 round: a CPE's column and row pick its tile.
  CHECK(rows.find("cpe % 8") != std::string::npos);
  CHECK(rows.find("cpe / 8") != std::string::npos);
  // Double-buffered: the first box and the next one, each from its issuer.
  size_t row = rows.find("dma_get broadcast_row async ");
  REQUIRE(row != std::string::npos);
  CHECK(rows.rfind("if (cpe % 8 == 0)", row) != std::string::npos);
  size_t union_ = rows.find("dma_get broadcast async ");
  REQUIRE(union_ != std::string::npos);
  CHECK(rows.rfind("if (cpe == 0)", union_) != std::string::npos);
  // The row's issuer waits for its row broadcast before the barrier.
  size_t wait = rows.find("dma_wait");
  REQUIRE(wait != std::string::npos);
  CHECK(rows.find("barrier;", wait) != std::string::npos);
  // No CPE fetches a box of its own but C's.
  CHECK(rows.find("dma_get async ") == std::string::npos);
}
