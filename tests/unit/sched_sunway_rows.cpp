// Sunway row broadcasts: LdmTiles' 8 x 8 lockstep rounds (an input with a
// box per CPE row is row-broadcast, one with a box per CPE column is
// broadcast as the union of the 8 columns' boxes), how the cost model
// charges a row broadcast, the bound on a 1024^3 matmul's DMA bytes under
// 64 KiB of LDM, and the staged code (scheduler/sunway/LdmTiles, TileOutputs,
// LdmBox, LdmRewrite).
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

std::string lowered(PipelineOptions::SunwayBroadcast b) {
  schedtest::SunwayMatmul mm("sw26010", {{"M", 1024}, {"K", 1024}, {"N", 1024}});
  mm.options.sunwayBroadcast = b;
  schedtest::DiagFixture fx;
  auto fs = lowerModule(mm.module, mm.options, fx.diags);
  REQUIRE(fs.size() == 1);
  return ir::printLoweredFunc(fs[0]);
}

constexpr double kMatrix = 4.0 * 1024 * 1024; // one 1024 x 1024 f32 matrix

} // namespace

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
