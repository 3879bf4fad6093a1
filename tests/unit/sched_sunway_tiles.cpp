// Sunway output tiling: swTVM's LDM sizing reproduces the paper's
// matmul choice, the fastest modelled tiling fits the LDM and moves far
// fewer bytes, the DMA model counts boxes exactly, and the pipeline
// builds the tiled schedule (scheduler/sunway/LdmTiles, TileOutputs).
#include "sched_build.h"
#include "source_module.h"
#include "scheduler/construct/FillHoles.h"
#include "scheduler/sunway/LdmTiles.h"
#include "scheduler/sunway/SunwayCostModel.h"
#include "scheduler/sunway/TileOutputs.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::construct;

namespace {

HardwareDesc sunwayHw(const std::string &name) { return schedtest::stdlibTarget(name); }

LoopNest matmulNest(int64_t m, int64_t k, int64_t n) {
  return buildLoopNest(*schedtest::matmulOp(), {{"M", m}, {"K", k}, {"N", n}});
}

} // namespace

TEST_CASE("sunway tiles: swTVM's sizing picks x = 1, y = 128, k = 64 for an f32 matmul in 64 KiB") {
  HardwareDesc hw = sunwayHw("sw26010");
  LoopNest nest = matmulNest(1024, 1024, 1024); // dims i, j, k
  LdmTiling t = swtvmLdmTiling(nest, hw, 64 * 1024, false);
  CHECK(t.tile == std::vector<int64_t>{1, 128, 64});
  CHECK(t.ldmBytes <= 64 * 1024);
  // The same under the budget the pipeline uses (8 KiB kept for the stack).
  CHECK(swtvmLdmTiling(nest, hw, 56 * 1024, false).tile == std::vector<int64_t>{1, 128, 64});
  // Small dimensions cap the first guess: a 16-wide output keeps y = 16.
  CHECK(swtvmLdmTiling(matmulNest(1024, 1024, 16), hw, 64 * 1024, false).tile[1] == 16);
}

TEST_CASE("sunway tiles: the fastest tiling fits and moves far fewer bytes than swTVM's") {
  HardwareDesc hw = sunwayHw("sw26010");
  LoopNest nest = matmulNest(1024, 1024, 1024);
  LdmTiling sw = swtvmLdmTiling(nest, hw, 56 * 1024, false), best = fastestLdmTiling(nest, hw, 56 * 1024, false);
  CHECK(best.ldmBytes <= 56 * 1024);
  CHECK(best.seconds <= sw.seconds);
  // x = 1 re-reads all of B for every row of C: bytes ~ M N K (1/x + 1/y).
  CHECK(sw.dmaBytes > 10 * best.dmaBytes);
  // Nothing that fits is modelled faster: no tile beats it by growing one
  // dimension and still fitting.
  for (size_t d = 0; d < best.tile.size(); ++d) {
    std::vector<int64_t> t = best.tile;
    t[d] *= 2;
    LdmTiling c = costLdmTiling(nest, hw, t, false);
    CHECK((c.ldmBytes > 56 * 1024 || c.seconds >= best.seconds));
  }
  // More LDM (the Pro) allows bigger tiles and fewer bytes.
  LdmTiling pro = fastestLdmTiling(nest, sunwayHw("sw26010-pro"), 248 * 1024, false);
  CHECK(pro.dmaBytes < best.dmaBytes);
}

TEST_CASE("sunway tiles: the DMA count of a tiling is exact for dividing shapes") {
  HardwareDesc hw = sunwayHw("sw26010");
  LdmTiling c = costLdmTiling(matmulNest(256, 256, 256), hw, {64, 128, 16}, false);
  // C once, A once per column tile (2), B once per row tile (4), in f32.
  CHECK(c.dmaBytes == 4.0 * 256 * 256 * (1 + 2 + 4));
  // 8 output tiles x (16 k blocks x 2 boxes + 1): each box one strided DMA.
  CHECK(c.transfers == 8 * (16 * 2 + 1));
  // 8 tiles on 64 CPEs: the busiest CPE does one tile.
  CpeWork one{16 * 2 + 1, 4.0 * (16 * (64 * 16 + 16 * 128) + 64 * 128), 2.0 * 64 * 128 * 256};
  CHECK(c.seconds == doctest::Approx(cpeSeconds(one, hw)));
}

TEST_CASE("sunway tiles: which statements TileOutputs takes") {
  std::string why;
  ir::OpPtr mm = schedtest::matmulOp();
  CHECK(tileOutputsApplies(mm->body[0], &why));
  ir::Module m = unittest::moduleFromSource(R"(
op total(X: f32[N]) -> S: f32 { S = sum(i) X[i]; }
op scale(X: f32[N]) -> Y: f32[N] { Y[i] = X[i] * 2.0; }
op avg(X: f32[M, N]) -> Y: f32[M] { Y[i] = sum(j) X[i, j] / 4.0; }
op spread(X: f32[M, N]) -> Y: f32[M] { Y[i] = (sum(j) X[i, j]) + (max(k) X[i, k]); }
)");
  CHECK_FALSE(tileOutputsApplies(m.findOp("total")->body[0], &why));
  CHECK(why.find("scalar") != std::string::npos);
  CHECK(tileOutputsApplies(m.findOp("scale")->body[0], &why));
  CHECK(tileOutputsApplies(m.findOp("avg")->body[0], &why));
  CHECK_FALSE(tileOutputsApplies(m.findOp("spread")->body[0], &why));
  CHECK(why.find("not all of it") != std::string::npos);
}

TEST_CASE("sunway tiles: the pipeline tiles a matmul by the sizing asked for") {
  schedtest::SunwayMatmul mm("sw26010");
  const ir::Module &m = mm.module;
  PipelineOptions &opts = mm.options;
  opts.swtvmLdmSizing = true;
  schedtest::DiagFixture fx;
  auto ks = scheduleModule(m, opts, fx.diags);
  REQUIRE(ks.size() == 1);
  std::string text = ir::printKernel(*ks[0]);
  // x = 1: no loop over rows inside a tile; y = 128 columns; k in blocks of 64.
  CHECK(text.find("for j in 0..min(128, N - ") != std::string::npos);
  CHECK(text.find("cdiv(K, 64)") != std::string::npos);
  CHECK(text.find("for i") == std::string::npos);
  // Without a hardware description there is nothing to size against: the
  // default schedule.
  opts.construct = nullptr;
  auto plain = scheduleModule(m, opts, fx.diags);
  REQUIRE(plain.size() == 1);
  CHECK(ir::printKernel(*plain[0]).find("tile") == std::string::npos);
}

TEST_CASE("sunway tiles: an element-wise op with a leading extent of 1 still uses all 64 CPEs") {
  ir::Module m = unittest::moduleFromSource(R"(
op relu4(X: f32[N, C, H, W]) -> Y: f32[N, C, H, W] { Y[n, c, y, x] = max(X[n, c, y, x], 0.0); }
)");
  ConstructOptions co;
  co.hw = sunwayHw("sw26010");
  co.shapes = {{"N", 1}, {"C", 64}, {"H", 56}, {"W", 56}};
  PipelineOptions opts;
  opts.target.family = ir::TargetFamily::Sunway;
  opts.construct = &co;
  schedtest::DiagFixture fx;
  auto ks = scheduleModule(m, opts, fx.diags);
  REQUIRE(ks.size() == 1);
  std::string text = ir::printKernel(*ks[0]);
  // One parallel index over the tiles of all four dimensions, not over N.
  CHECK(text.find("for (tile) in spatial(64) * repeat(cdiv(") != std::string::npos);
  CHECK(text.find("for (n) in spatial(64)") == std::string::npos);
}

TEST_CASE("sunway tiles: double buffering overlaps the blocks fetched ahead with computing") {
  HardwareDesc hw = sunwayHw("sw26010");
  const MemLevel &mem = *hw.levelFor(ir::Scope::Global);
  double share = mem.bandwidth / hw.units; // bytes per ns
  CpeWork w{10, 1e6, 1e7, 8, 8e5};
  double sync = 2 * mem.latency + 2e5 / share, ahead = 8 * mem.latency + 8e5 / share, compute = 1e7 / hw.gflopsF32;
  CHECK(cpeSeconds(w, hw) == doctest::Approx((sync + std::max(ahead, compute)) * 1e-9));
  CpeWork plain{10, 1e6, 1e7};
  CHECK(cpeSeconds(plain, hw) == doctest::Approx((10 * mem.latency + 1e6 / share + compute) * 1e-9));

  LoopNest nest = matmulNest(256, 256, 256);
  LdmTiling one = costLdmTiling(nest, hw, {64, 128, 16}, false), two = costLdmTiling(nest, hw, {64, 128, 16}, true);
  CHECK(two.dmaBytes == one.dmaBytes);
  CHECK(two.ldmBytes == one.ldmBytes + 4.0 * (64 * 16 + 16 * 128) + 2 * 32);
  CHECK(two.seconds < one.seconds);
  // The fastest double-buffered tiling leaves room for the second buffers.
  LdmTiling best = fastestLdmTiling(matmulNest(1024, 1024, 1024), hw, 56 * 1024, true);
  CHECK(best.ldmBytes <= 56 * 1024);
}

TEST_CASE("sunway tiles: without LDM sizing, buffer iterators stay at 64 elements") {
  HardwareDesc hw = sunwayHw("sw26010");
  LoopNest nest = matmulNest(1024, 1024, 1024); // dims i, j, k
  LdmTiling fixed = fixedLdmTiling(nest, hw, 56 * 1024, false), sw = swtvmLdmTiling(nest, hw, 56 * 1024, false);
  // swTVM's first guess (j and k index a lowest dimension), never grown.
  CHECK(fixed.tile == std::vector<int64_t>{1, 64, 64});
  CHECK(sw.tile == std::vector<int64_t>{1, 128, 64});
  CHECK(fixed.dmaBytes > sw.dmaBytes);
  CHECK(fixedLdmTiling(matmulNest(1024, 1024, 16), hw, 56 * 1024, false).tile[1] == 16);
}

TEST_CASE("sunway tiles: the natural loop order keeps the reduction inside the tile's loops") {
  schedtest::SunwayMatmul mm("sw26010", {{"M", 256}, {"K", 256}, {"N", 256}});
  auto order = [&](bool natural) {
    mm.options.sunwayNaturalOrder = natural;
    schedtest::DiagFixture fx;
    auto ks = scheduleModule(mm.module, mm.options, fx.diags);
    REQUIRE(ks.size() == 1);
    std::string text = ir::printKernel(*ks[0]);
    // The accumulation: its reduction block loop against the tile's column loop.
    size_t blocks = text.find("for k_blk in"), update = text.find("+=");
    size_t cols = text.rfind("for j in", update);
    REQUIRE((blocks != std::string::npos && cols != std::string::npos));
    return blocks < cols ? "reduction outside" : "reduction inside";
  };
  CHECK(std::string(order(false)) == "reduction outside");
  CHECK(std::string(order(true)) == "reduction inside");
}
