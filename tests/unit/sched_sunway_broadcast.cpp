// Sunway broadcast of shared operands: LdmTiles' model of lockstep rounds
// (which inputs are shared, the bytes they move, how the cost model
// charges a broadcast), and the staged code: CPE 0's broadcast get
// between array barriers, which every CPE reaches alike
// (scheduler/sunway/LdmTiles, TileOutputs, LdmBox, LdmRewrite).
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
std::string lowered(bool broadcast) {
  schedtest::SunwayMatmul mm("sw26010", {{"M", 1024}, {"K", 1024}, {"N", 1024}});
  mm.options.sunwayBroadcast = broadcast ? PipelineOptions::SunwayBroadcast::On : PipelineOptions::SunwayBroadcast::Off;
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
  std::string on = lowered(true), off = lowered(false);
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
