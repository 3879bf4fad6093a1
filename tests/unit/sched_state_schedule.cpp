// StateSchedule and the Gensor-driven contraction blocking, as a property:
// the states Gensor ranks best in top_results, Roller's state and the
// exhaustive search's best states build a kernel that passes the
// scheduler's checks and computes what the interpreter computes, on small
// shapes with extents 1 and primes (tiles overshooting every dimension).
#include "source_module.h"
#include "ir/Interpreter.h"
#include "sched_build.h"
#include "sched_eval.h"
#include "scheduler/cpu/ConstructSchedule.h"
#include "scheduler/cpu/StateSchedule.h"
#include "scheduler/construct/Baselines.h"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

// The x86 AVX-512 and AVX2 instruction sets as their backend resolves them.
const TargetDesc kAvx512{ir::TargetFamily::Cpu, 512, 32};

namespace {

construct::HardwareDesc zen5() {
  std::string path = std::string(TK_SOURCE_STDLIB_DIR) + "/targets/zen5-2c.hw";
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  SourceManager sm;
  DiagEngine diags(sm);
  auto hw = construct::parseHardwareDesc(ss.str(), sm.addFile(path, ss.str()), diags);
  REQUIRE(hw);
  return *hw;
}

Module stdModule() { return unittest::moduleFromSource("import \"std/linalg.tk\";\nimport \"std/nn.tk\";\n"); }

double value(const std::string &name, size_t i) { return double((i * 7 + name[0] * 3) % 17) / 4 - 2; }

// Lowers `k` and checks it against the interpreter at each of `shapes`.
void checkKernel(const KernelPtr &k, const std::vector<std::map<std::string, int64_t>> &shapes) {
  INFO(printKernel(*k));
  std::vector<LoweredFunc> fs{lowerOne(k->op, k)};
  for (const auto &sh : shapes) {
    InterpArgs args;
    for (const auto &[n, v] : sh) {
      bool scalar = std::any_of(k->op->inputs.begin(), k->op->inputs.end(),
                                [&](const Param &p) { return p.isScalar() && p.name == n; });
      if (scalar) args.scalars[n] = double(v);
      else args.symbols[n] = v;
    }
    InterpResult shapesOnly = computeShapes(*k->op, args);
    REQUIRE(shapesOnly.status == 0);
    for (const Param &p : k->op->inputs) {
      if (p.isScalar()) continue;
      size_t n = 1;
      for (int64_t e : shapesOnly.shapes.at(p.name)) n *= size_t(e);
      for (size_t i = 0; i < n; ++i) args.tensors[p.name].push_back(value(p.name, i));
    }
    InterpResult want = interpret(*k->op, args);
    LoopEval ev;
    ev.run(fs[0], sh, value);
    REQUIRE(ev.status == 0);
    const TensorPtr &out = k->op->outputs[0];
    const std::vector<double> &got = ev.tensor(out);
    const std::vector<double> &ref = want.tensors.at(out->name);
    REQUIRE(got.size() == ref.size());
    // The evaluator computes in double, the interpreter rounds to f32: its
    // error bound covers the difference.
    const std::vector<double> &bound = want.errorBounds.at(out->name);
    for (size_t i = 0; i < got.size(); ++i)
      REQUIRE_MESSAGE(std::fabs(got[i] - ref[i]) <= bound[i] + 1e-9 * (1 + std::fabs(ref[i])),
                      printKernel(*k) << " element " << i << " at shapes " << sh.size());
  }
}

struct Case {
  const char *op;
  std::map<std::string, int64_t> construct;           // shapes the states are built for
  std::vector<std::map<std::string, int64_t>> run;    // shapes the kernels run at
};

// Gensor's 8 best-ranked states (of several hundred: the kernels differ
// only in tile sizes, and the interpreter is slow), Roller's, and the
// exhaustive search's 3 best.
std::vector<construct::Ranked> states(const construct::Space &space) {
  std::vector<construct::Ranked> out = construct::runGensor(space, {}).ranked;
  if (out.size() > 8) out.resize(8);
  out.push_back(construct::rollerConstruct(space));
  for (const construct::Ranked &r : construct::exhaustiveBest(space, 20000, 3).top) out.push_back(r);
  return out;
}

} // namespace

TEST_CASE("state schedule: every top_results and baseline state builds an exact kernel") {
  Module m = stdModule();
  construct::HardwareDesc hw = zen5();
  const std::vector<Case> cases = {
      {"matmul", {{"M", 96}, {"K", 64}, {"N", 80}}, {{{"M", 1}, {"K", 1}, {"N", 1}}, {{"M", 7}, {"K", 13}, {"N", 19}}}},
      {"gemv", {{"M", 256}, {"N", 96}}, {{{"M", 1}, {"N", 1}}, {{"M", 37}, {"N", 11}}}},
      {"conv2d",
       {{"N", 2}, {"C", 16}, {"H", 14}, {"W", 14}, {"F", 16}, {"R", 3}, {"S", 3}, {"stride", 1}, {"pad", 1}, {"dilation", 1}},
       {{{"N", 1}, {"C", 1}, {"H", 1}, {"W", 1}, {"F", 1}, {"R", 1}, {"S", 1}, {"stride", 1}, {"pad", 0}, {"dilation", 1}},
        {{"N", 2}, {"C", 3}, {"H", 7}, {"W", 5}, {"F", 5}, {"R", 3}, {"S", 2}, {"stride", 2}, {"pad", 1}, {"dilation", 1}}}},
      {"avgpool2d",
       {{"N", 2}, {"C", 8}, {"H", 16}, {"W", 16}, {"kernel", 2}, {"stride", 2}, {"pad", 0}},
       {{{"N", 1}, {"C", 1}, {"H", 1}, {"W", 1}, {"kernel", 1}, {"stride", 1}, {"pad", 0}},
        {{"N", 2}, {"C", 3}, {"H", 11}, {"W", 7}, {"kernel", 3}, {"stride", 2}, {"pad", 1}}}},
      {"maxpool2d",
       {{"N", 2}, {"C", 8}, {"H", 16}, {"W", 16}, {"kernel", 3}, {"stride", 1}, {"pad", 1}},
       {{{"N", 1}, {"C", 3}, {"H", 5}, {"W", 13}, {"kernel", 3}, {"stride", 1}, {"pad", 1}}}},
  };
  for (const Case &c : cases) {
    CAPTURE(c.op);
    OpPtr op = m.findOp(c.op);
    REQUIRE(op);
    REQUIRE(stateScheduleApplies(*op));
    construct::Space space(construct::buildLoopNest(*op, c.construct), hw);
    std::vector<construct::Ranked> all = states(space);
    REQUIRE(all.size() >= 3);
    for (const construct::Ranked &r : all) {
      CAPTURE(r.state.str());
      checkKernel(stateSchedule(op, space, r.state), c.run);
      if (constructScheduleApplies(*op))
        checkKernel(constructSchedule(op, contractionTilesFromState(space, r.state, kAvx512)), c.run);
    }
  }
}

TEST_CASE("state schedule: the CPU model streams reductions through the register tile") {
  Module m = stdModule();
  construct::Space space(construct::buildLoopNest(*m.findOp("matmul"), {{"M", 512}, {"K", 512}, {"N", 512}}), zen5());
  size_t reg = space.levels() - 1;
  CHECK(space.steps(reg, 2, 512) == std::vector<int64_t>{1}); // k
  CHECK(space.steps(reg, 1, 512).back() == 64);               // j still grows
  // A register tile of 4 x 64 then holds 256 accumulators and 68 operands.
  std::vector<int64_t> t = {4, 64, 1};
  CHECK(space.nest().footprintBytes(t) == (4 * 64 + 4 + 64) * 4);
  for (const construct::Ranked &r : construct::runGensor(space, {}).ranked) CHECK(r.state.tile[reg][2] == 1);
}
