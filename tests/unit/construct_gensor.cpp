// The construction optimizer (scheduler/construct/): hardware descriptions,
// benefit formulas, capacity checks, the annealing schedule, determinism,
// hole filling with candidates and `require`, and GPU legality.
#include "source_module.h"
#include "sched_build.h"
#include "frontend/driver/HostHardware.h"
#include "scheduler/construct/FillHoles.h"

#include <fmt/format.h>

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

using namespace tk;
using namespace tk::construct;

namespace {

HardwareDesc target(const std::string &name) { return schedtest::stdlibTarget(name); }

struct Parsed {
  std::optional<HardwareDesc> hw;
  std::string messages;
};
Parsed parse(const std::string &text) {
  SourceManager sm;
  DiagEngine diags(sm);
  std::ostringstream out;
  diags.setStream(&out);
  Parsed p;
  p.hw = parseHardwareDesc(text, sm.addFile("m.hw", text), diags);
  for (const Diagnostic &d : diags.all())
    p.messages += fmt::format("{}:{}: {}\n", d.loc.line, d.loc.col, d.message);
  return p;
}

const char *kTiny = R"(format = 1
name = tiny
family = cpu
units = 2
vector_bits = 256
gflops_f32 = 100
[level dram]
capacity = 1G
bandwidth = 20
latency = 90
transaction = 64
shared = true
[level l1]
capacity = 4K
bandwidth = 100
latency = 1
transaction = 64
[level registers]
capacity = 512
bandwidth = 300
latency = 0.3
transaction = 32
)";

ir::Module module(const std::string &src) { return unittest::moduleFromSource(src); }

// A register-tiled matmul kernel whose T x U tile is declared by `holes`
// (the `let`s and `require`s of T and U).
std::string holeKernel(const std::string &holes) {
  return R"(import "std/linalg.tk";
kernel mm implements matmul on cpu {
)" + holes + R"(
  for (bi, bj) in spatial(cdiv(M, T), cdiv(N, U)) on cores {
    register acc: f32[T, U];
    for (i, j) in repeat(T, U) { acc[i, j] = 0; }
    for k in 0..K {
      for (i, j) in repeat(T, U) { acc[i, j] += A[bi*T + i, k] * B[k, bj*U + j]; }
    }
    for (i, j) in repeat(T, U) { C[bi*T + i, bj*U + j] = acc[i, j]; }
  }
}
)";
}

const std::string kHoleKernel = holeKernel("  let T = ? in {3, 5, 6};\n  let U = ?;\n  require U % 48 == 0;\n  require T != 6;");

} // namespace

TEST_CASE("construct: benefit formulas") {
  // Tiling: traffic falls 4x while the footprint grows 2x -> 4 * 2 = 8.
  CHECK(tilingBenefit(400, 10, 100, 20) == doctest::Approx(8.0));
  CHECK(tilingBenefit(100, 20, 400, 10) == doctest::Approx(1.0 / 8));
  // Caching 1 KB from (100 ns, 10 B/ns) to (10 ns, 100 B/ns): (100 + 102.4) / (10 + 10.24).
  CHECK(cachingBenefit(100, 10, 10, 100, 1024) == doctest::Approx(202.4 / 20.24));
  // vThread: 64 elements over a 32-element bank row: ceil(64/32) / ceil(64/(4*32)) = 2.
  CHECK(vthreadBenefit(64, 32, 4) == doctest::Approx(2.0));
  CHECK(vthreadBenefit(16, 32, 2) == doctest::Approx(1.0));
}

TEST_CASE("construct: annealing schedule") {
  CHECK(cacheBoost(10) == doctest::Approx(1.5));
  CHECK(cacheBoost(0) == doctest::Approx(0.5));
  CHECK(cacheBoost(1000) == doctest::Approx(3.0));
  CHECK(topResultProbability(std::exp(-10.0)) == doctest::Approx(0.5));
  CHECK(topResultProbability(1.0) > 0.99);
  CHECK(topResultProbability(std::exp(-30.0)) < 1e-4);
}

TEST_CASE("construct: loop nest and footprints from index expressions") {
  LoopNest n = buildLoopNest(*schedtest::matmulOp(), {{"M", 64}, {"K", 32}, {"N", 16}});
  REQUIRE(n.dims.size() == 3);
  CHECK(n.dims[0].name == "i");
  CHECK(n.dims[2].reduction);
  CHECK(n.dims[2].extent == 32);
  CHECK(n.vectorDim() == 1);
  // C[i,j] 4x8, A[i,k] 4x2, B[k,j] 2x8 elements.
  CHECK(n.footprintBytes({4, 8, 2}) == doctest::Approx(4.0 * (32 + 8 + 16)));
  // 16 * 2 * 16 tiles, each moving its inputs' footprint (A 8 + B 16
  // elements); the output tile (32 elements) stays while k runs over the
  // parent's depth: once per 16 * 2 output tiles within the whole K, or per
  // 4 parent depth blocks of 8.
  CHECK(n.trafficBytes({4, 8, 2}, {64, 16, 32}) == doctest::Approx(4.0 * (16 * 2 * 16 * 24 + 16 * 2 * 32)));
  CHECK(n.trafficBytes({4, 8, 2}, {64, 16, 8}) == doctest::Approx(4.0 * (16 * 2 * 16 * 24 + 16 * 2 * 4 * 32)));

  // A strided convolution: X[n, c, y*s + r - p, x*s + q - p] spans s*(Ty-1) + Tr rows.
  ir::Module m = module("import \"std/nn.tk\";\n");
  LoopNest c = buildLoopNest(*m.findOp("conv2d"), {{"stride", 2}});
  const Access *x = nullptr;
  for (const Access &a : c.accesses)
    if (a.tensor == "X") x = &a;
  REQUIRE(x);
  std::vector<int64_t> tile(c.dims.size(), 1);
  for (size_t d = 0; d < c.dims.size(); ++d)
    if (c.dims[d].name == "y" || c.dims[d].name == "r") tile[d] = 3;
  CHECK(c.footprint(*x, tile) == doctest::Approx(2.0 * 2 + 3));
}

TEST_CASE("construct: window extents default to 3, other symbols to 1024") {
  ir::Module m = module("import \"std/nn.tk\";\nimport \"std/linalg.tk\";\nimport \"std/reduce.tk\";\n");
  // conv2d's R and S bound r and s, which share image indices with y and x;
  // avgpool2d's scalar `kernel` bounds its window the same way.
  CHECK(windowExtents(*m.findOp("conv2d")) == std::set<std::string>{"R", "S"});
  CHECK(windowExtents(*m.findOp("avgpool2d")) == std::set<std::string>{"kernel"});
  // A contraction's K and a reduction over its own index are no windows.
  CHECK(windowExtents(*m.findOp("matmul")).empty());
  CHECK(windowExtents(*m.findOp("reduce_max")).empty());

  auto conv = assumedValues(*m.findOp("conv2d"), {{"S", 5}});
  CHECK(conv.at("R") == 3);
  CHECK(conv.at("S") == 5); // a hint wins
  CHECK(conv.at("H") == 1024);
  CHECK(conv.at("stride") == 1);
  CHECK(assumedValues(*m.findOp("avgpool2d"), {}).at("kernel") == 3);
  // The nest sees the defaults: a 3-wide window over a 1022-wide output.
  LoopNest c = buildLoopNest(*m.findOp("conv2d"), {{"pad", 0}});
  for (const LoopDim &d : c.dims) {
    if (d.name == "r" || d.name == "s") CHECK(d.extent == 3);
    if (d.name == "x") CHECK(d.extent == 1022);
  }
}

TEST_CASE("construct: hardware descriptions") {
  for (const char *name : {"zen5-2c", "h100", "h200", "rtx4090", "orin-nano", "sw26010", "sw26010-pro"}) {
    HardwareDesc h = target(name);
    CHECK(h.name == name);
    CHECK(h.levels.size() >= 3);
    Parsed again = parse(printHardwareDesc(h));
    REQUIRE(again.hw);
    CHECK(printHardwareDesc(*again.hw) == printHardwareDesc(h));
  }
  CHECK(target("zen5-2c").gflopsF32 == 247);
  CHECK(target("zen5-2c").unitCapacity(1) == 16 << 20); // L3 32 MB over 2 cores
  CHECK(target("h100").family == ir::TargetFamily::Cuda);

  HardwareDesc host = driver::detectHostHardware();
  CHECK(host.units >= 1);
  CHECK(host.levels.size() >= 3);
  CHECK(parse(printHardwareDesc(host)).hw);

  Parsed bad = parse("format = 1\nname = x\nfamily = gpu\nunits = two\n[level dram\ncapacity = 1T\nspeed = 3\n");
  CHECK_FALSE(bad.hw);
  CHECK(bad.messages == "3:10: unknown family 'gpu' (expected cpu, cuda or sunway)\n"
                        "4:9: `units` needs a non-negative integer (optionally with K, M or G), not 'two'\n"
                        "5:1: expected a section header `[level NAME]`\n"
                        "6:1: unknown key `capacity`\n"
                        "7:1: unknown key `speed`\n"
                        "1:1: hardware description lacks `family`\n"
                        "1:1: hardware description lacks a positive `gflops_f32`\n"
                        "1:1: a hardware description needs at least two `[level ...]` sections "
                        "(main memory first, registers last)\n");
  CHECK(parse("format = 2\n").messages.find("1:10: unsupported hardware description format 2") == 0);
}

TEST_CASE("construct: capacity check forbids a transition") {
  Parsed p = parse(kTiny);
  REQUIRE(p.hw);
  Space space(buildLoopNest(*schedtest::matmulOp(), {{"M", 256}, {"K", 256}, {"N", 256}}), *p.hw);
  ETIR s = space.initial();
  CHECK(space.capacityViolation(s) == "");
  // 4 KB of L1 per core: a 32x32x32 tile needs 3 * 4 KB.
  s.tile[1] = {32, 32, 32};
  CHECK(space.capacityViolation(s) == "footprint 12288 B exceeds l1 capacity 4096 B");
  s.tile[1] = {16, 16, 16};
  CHECK(space.capacityViolation(s) == "");
  // From 16x16x16 (3 KB) growing k to 32 needs 16*32 + 32*16 + 16*16 floats = 5 KB: benefit 0.
  Action growK{Action::Kind::Tile, 2};
  CHECK(space.benefit(s, growK) == 0);
  Action shrinkI{Action::Kind::InvTile, 0};
  CHECK(space.benefit(s, shrinkI) > 0);
}

TEST_CASE("construct: determinism and seeds") {
  HardwareDesc h = target("zen5-2c");
  Space space(buildLoopNest(*schedtest::matmulOp(), {{"M", 512}, {"K", 512}, {"N", 512}}), h);
  GensorOptions o;
  std::ostringstream t1, t2;
  o.trace = &t1;
  GensorResult a = runGensor(space, o);
  o.trace = &t2;
  GensorResult b = runGensor(space, o);
  REQUIRE(!a.ranked.empty());
  CHECK(t1.str() == t2.str());
  CHECK(a.ranked.front().state == b.ranked.front().state);
  CHECK(a.steps > 90); // 2^50 halved to 2^-50: 100 steps per chain (fewer only when stuck)
  for (const Ranked &r : a.ranked) CHECK(space.capacityViolation(r.state) == "");
  o.trace = nullptr;
  o.seed = 99;
  CHECK(runGensor(space, o).ranked.size() > 0);
}

TEST_CASE("construct: holes take candidates and satisfy require") {
  ir::Module m = module(kHoleKernel);
  REQUIRE(m.kernels.size() >= 1);
  const ir::Kernel &k = *m.kernels.back();
  ConstructOptions co;
  co.hw = target("zen5-2c");
  co.shapes = {{"M", 512}, {"N", 512}, {"K", 512}};
  LoopNest nest = buildLoopNest(*k.op, co.shapes);
  auto roleT = holeRole(k, nest, co.hw, 0, co.shapes), roleU = holeRole(k, nest, co.hw, 1, co.shapes);
  REQUIRE(roleT);
  REQUIRE(roleU);
  CHECK(nest.dims[roleT->dim].name == "i");
  CHECK(nest.dims[roleU->dim].name == "j");
  CHECK(roleT->level == co.hw.levels.size() - 1);

  schedtest::DiagFixture fx;
  ir::KernelPtr filled = fillHolesByConstruction(k, co, fx.diags);
  REQUIRE(filled);
  CHECK(fx.messages() == "");
  int64_t T = *filled->holes[0].value, U = *filled->holes[1].value;
  CHECK((T == 3 || T == 5));
  CHECK(U % 48 == 0);
  // Same input, same choice.
  ir::KernelPtr again = fillHolesByConstruction(k, co, fx.diags);
  CHECK(*again->holes[0].value == T);
  CHECK(*again->holes[1].value == U);
}

TEST_CASE("construct: holes ranked by measurement and by the model, with records") {
  ir::Module m = module(holeKernel("  let T = ? in {2, 4, 8};\n  let U = ? in {16, 32, 64};\n  require T * U <= 256;"));
  const ir::Kernel &k = *m.kernels.back();
  ConstructOptions co;
  co.hw = target("zen5-2c");
  co.shapes = {{"M", 512}, {"N", 512}, {"K", 512}};
  schedtest::DiagFixture fx;
  ir::KernelPtr plain = fillHolesByConstruction(k, co, fx.diags);
  REQUIRE(plain);
  auto valuesOf = [](const ir::Kernel &f) { return std::make_pair(*f.holes[0].value, *f.holes[1].value); };

  // Timing: every legal point is a candidate (8 of the 9: 8 x 64 > 256),
  // the fastest is taken and each timed one recorded, with a nest_loop per
  // hole whose step is its value.
  co.measureTopK = 16;
  std::vector<std::pair<int64_t, int64_t>> timed;
  co.measure = [&](const ir::KernelPtr &c) {
    auto [T, U] = valuesOf(*c);
    timed.push_back({T, U});
    costmodel::Latency l;
    l.median = 1e-3 * (T == 4 && U == 16 ? 1.0 : 2.0 + T + U); // 4 x 16 is the fastest
    l.runs = 5;
    return l;
  };
  std::vector<costmodel::DecisionSequence> recorded;
  co.recordMeasured = [&](const ir::Op &op, const costmodel::DecisionSequence &seq, const std::string &origin,
                          const costmodel::Latency &) {
    CHECK(op.name == "matmul");
    CHECK(origin == "holes-gensor");
    recorded.push_back(seq);
  };
  ir::KernelPtr measured = fillHolesByConstruction(k, co, fx.diags);
  REQUIRE(measured);
  CHECK(fx.messages() == "");
  CHECK(timed.size() == 8);
  CHECK(timed.front() == valuesOf(*plain)); // the construction's own pick first
  CHECK(valuesOf(*measured) == std::make_pair<int64_t, int64_t>(4, 16));
  REQUIRE(recorded.size() == 8);
  const costmodel::DecisionSequence &seq = recorded.front();
  REQUIRE(seq.size() >= 2);
  const costmodel::Primitive &last = seq.back(), &before = seq[seq.size() - 2];
  CHECK(before.kind == costmodel::PrimitiveKind::NestLoop);
  CHECK(last.kind == costmodel::PrimitiveKind::NestLoop);
  CHECK(before.numbers == std::vector<double>{0, double(timed.front().first), 512.0 / timed.front().first, 0});
  CHECK(last.names == std::vector<std::string>{"j"});

  // Calls adding up to more than 2 s stop the timing: the rest keep their rank.
  timed.clear();
  co.measure = [&](const ir::KernelPtr &c) {
    timed.push_back(valuesOf(*c));
    return costmodel::Latency{timed.size() == 1 ? 3.0 : 1.0, 1, 0};
  };
  co.recordMeasured = nullptr;
  ir::KernelPtr budget = fillHolesByConstruction(k, co, fx.diags);
  REQUIRE(budget);
  CHECK(timed.size() == 1);
  CHECK(valuesOf(*budget) == valuesOf(*plain));

  // The model alone: its best-scored point, no timing.
  co.measure = nullptr;
  co.recordMeasured = nullptr;
  co.rankByModel = [](const std::vector<costmodel::DecisionSequence> &seqs) {
    std::vector<double> score;
    for (const auto &q : seqs) score.push_back(q.back().numbers[1] == 32 && q[q.size() - 2].numbers[1] == 8 ? 1.0 : 0.0);
    return score;
  };
  ir::KernelPtr ranked = fillHolesByConstruction(k, co, fx.diags);
  REQUIRE(ranked);
  CHECK(valuesOf(*ranked) == std::make_pair<int64_t, int64_t>(8, 32));
}

TEST_CASE("construct: no legal assignment is reported at the require") {
  std::string src = kHoleKernel;
  src.replace(src.find("require T != 6;"), 15, "require T > 6; ");
  ir::Module m = module(src);
  schedtest::DiagFixture fx;
  ConstructOptions co;
  co.hw = target("zen5-2c");
  CHECK_FALSE(fillHolesByConstruction(*m.kernels.back(), co, fx.diags));
  CHECK(fx.messages() == "the construction optimizer found no assignment of the holes' candidates that satisfies "
                         "`?0 > 6`\n");
}

TEST_CASE("construct: GPU targets give legal thread blocks") {
  for (const char *name : {"h100", "h200", "rtx4090", "orin-nano"}) {
    HardwareDesc h = target(name);
    for (auto shape : std::vector<std::map<std::string, int64_t>>{
             {{"M", 8192}, {"K", 8192}, {"N", 8192}}, {{"M", 65536}, {"K", 4}, {"N", 1024}}, {{"M", 7}, {"K", 13}, {"N", 1}}}) {
      Space space(buildLoopNest(*schedtest::matmulOp(), shape), h);
      GensorResult r = runGensor(space, {});
      REQUIRE(!r.ranked.empty());
      const ETIR &best = r.ranked.front().state;
      CHECK(space.capacityViolation(best) == "");
      CHECK(space.gpuThreads(best) <= h.maxThreadsPerBlock);
      size_t shared = h.levels.size() - 2;
      CHECK(space.nest().footprintBytes(best.tile[shared]) <= static_cast<double>(h.unitCapacity(shared)));
      CHECK(space.nest().footprintBytes(best.tile.back()) / 4 <= h.maxRegistersPerThread);
    }
  }
}
