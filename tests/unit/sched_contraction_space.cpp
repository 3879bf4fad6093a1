// ContractionSpace: which blockings of a constructed contraction are legal,
// random legal draws (what tk_dataset measures and --rank=model scores) —
// exact on ragged shapes like the rule's — their decisions read back, and
// the roofline's estimate of one.
#include "sched_build.h"
#include "sched_eval.h"
#include "scheduler/cpu/ContractionSpace.h"

#include <doctest/doctest.h>

#include <set>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

namespace {

const TargetDesc kAvx512{ir::TargetFamily::Cpu, 512, 32};
const TargetDesc kAvx2{ir::TargetFamily::Cpu, 256, 16};

double value(const std::string &name, size_t i) { return double((i * 7 + name[0]) % 11) - 5; }

} // namespace

TEST_CASE("contraction space: legality says why a blocking cannot be built") {
  std::string why;
  CHECK(contractionTilesLegal({6, 64, 128, 126, 512, 512, 2048, 0}, kAvx512, 4, &why));
  struct Case {
    ContractionTiles t;
    const char *reason;
  } cases[] = {
      {{6, 40, 128, 126, 520, 0, 0, 0}, "nr is not a whole number of vectors"},
      {{2, 80, 128, 126, 560, 0, 0, 0}, "nr is more than four vectors"},
      {{7, 64, 128, 126, 512, 0, 0, 0}, "the register tile does not fit the register file"},
      {{6, 64, 128, 128, 512, 0, 0, 0}, "the task tile is not whole register tiles"},
      {{6, 64, 128, 126, 512, 200, 0, 0}, "ka or kd is not a multiple of kc"},
      {{6, 64, 0, 126, 512, 0, 0, 0}, "a tile size is not in 1 .. 2^20"},
  };
  for (const Case &c : cases) {
    CHECK(!contractionTilesLegal(c.t, kAvx512, 4, &why));
    CHECK(why == c.reason);
  }
  CHECK(!contractionTilesLegal({3, 32, 64, 6, 32, 0, 0, 0}, kAvx2, 4, &why)); // 3 x 4 + 4 + 1 > 16 ymm
  CHECK(contractionTilesLegal({2, 32, 64, 6, 32, 0, 0, 0}, kAvx2, 4));
}

TEST_CASE("contraction space: random draws are legal, varied, and read back from their decisions") {
  construct::HardwareDesc hw = stdlibTarget("zen5-2c");
  construct::Rng rng(42);
  std::set<std::pair<int64_t, int64_t>> regTiles;
  construct::Space space(construct::buildLoopNest(*matmulOp(), {{"M", 512}, {"N", 512}, {"K", 512}}), hw);
  for (int i = 0; i < 300; ++i) {
    ContractionTiles t = randomContractionTiles(hw, kAvx512, 4, rng);
    std::string why;
    CHECK_MESSAGE(contractionTilesLegal(t, kAvx512, 4, &why), why);
    regTiles.insert({t.mr, t.nr});
    auto back = contractionTilesOf(contractionDecisions(space, t));
    REQUIRE(back);
    CHECK(back->mr == t.mr);
    CHECK(back->nc == t.nc);
    CHECK(back->ka == std::max(t.ka, t.kc)); // 0 and kc mean the same depth
    CHECK(back->kd == t.kd);
    CHECK(back->streamBytes == t.streamBytes);
  }
  CHECK(regTiles.size() > 40); // of the 59 that fit 32 zmm
  CHECK(!contractionTilesOf(costmodel::nestDecisions(space.nest(), hw)));
}

TEST_CASE("contraction space: random blockings are exact on ragged shapes") {
  // Draws shrunk in depth and task size so the evaluator stays quick; the
  // register tiles, panel widths and version choices are the draws'.
  construct::HardwareDesc hw = stdlibTarget("zen5-2c");
  construct::Rng rng(7);
  OpPtr op = std::make_shared<Op>(*matmulOp());
  op->where.clear();
  for (int i = 0; i < 6; ++i) {
    ContractionTiles t = randomContractionTiles(hw, kAvx512, 4, rng);
    int64_t kc = 2 + i % 3;
    t.ka = t.ka / t.kc * kc;
    t.kd = t.kd / t.kc * kc;
    t.kc = kc;
    t.mc = t.mr * std::min<int64_t>(t.mc / t.mr, 2);
    t.nc = t.nr * std::min<int64_t>(t.nc / t.nr, 2);
    t.streamBytes = t.streamBytes ? 64 : 0;
    REQUIRE(contractionTilesLegal(t, kAvx512, 4));
    CAPTURE(printContractionTiles(t));
    LoweredFunc f = lowerOne(op, constructSchedule(op, t));
    for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{1, 1, 1}, {13, 7, 17}, {2, 0, 3}, {31, 5, 37}})
      checkMatmul(f, M, K, N, value);
  }
}

TEST_CASE("contraction space: the roofline prefers the capacity rule's blocking to a one-vector register tile") {
  construct::HardwareDesc hw = stdlibTarget("zen5-2c");
  construct::Space space(construct::buildLoopNest(*matmulOp(), {{"M", 1024}, {"N", 1024}, {"K", 1024}}), hw);
  ContractionTiles rule = chooseContractionTiles(hw, kAvx512, 4);
  ContractionTiles thin = rule;
  thin.mr = 1, thin.nr = 16, thin.mc = 16, thin.nc = 64;
  CHECK(contractionEstimate(space, rule).seconds < contractionEstimate(space, thin).seconds);
}
