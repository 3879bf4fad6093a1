// tk_construct_bench: the construction optimizer on Gensor's Table IV
// operators (docs/performance.md, "Construction"). For each operator and
// hardware description: construction time of Gensor (runGensor), of the
// Roller baseline and of exhaustive enumeration, and the roofline-estimated
// time of each result as ratios to Gensor's (> 1: Gensor's choice is
// estimated faster), plus the ablation without setVThread.
//
//   tk_construct_bench [--hw NAME]... [--limit N]
//
// The kernels are not run: the ratios compare the model's estimates of the
// chosen tilings, which is what the three searches optimize.
#include "bench/TableIVModule.h"
#include "scheduler/construct/Baselines.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace tk;
using namespace tk::construct;

namespace {

struct Case {
  const char *id, *op;
  std::map<std::string, int64_t> shape;
};

const Case kCases[] = {
    {"C1", "conv2d", {{"N", 128}, {"C", 256}, {"H", 30}, {"W", 30}, {"F", 256}, {"R", 3}, {"S", 3}, {"stride", 2}, {"pad", 0}, {"dilation", 1}}},
    {"C2", "conv2d", {{"N", 128}, {"C", 128}, {"H", 28}, {"W", 28}, {"F", 128}, {"R", 3}, {"S", 3}, {"stride", 1}, {"pad", 0}, {"dilation", 1}}},
    {"C3", "conv2d", {{"N", 128}, {"C", 128}, {"H", 58}, {"W", 58}, {"F", 128}, {"R", 3}, {"S", 3}, {"stride", 2}, {"pad", 0}, {"dilation", 1}}},
    {"M1", "matmul", {{"M", 8192}, {"K", 8192}, {"N", 8192}}},
    {"M2", "matmul", {{"M", 65536}, {"K", 4}, {"N", 1024}}},
    {"M3", "matmul", {{"M", 65536}, {"K", 1024}, {"N", 4096}}},
    {"V1", "gemv", {{"M", 16384}, {"N", 16384}}},
    {"V2", "gemv", {{"M", 16384}, {"N", 8192}}},
    {"V3", "gemv", {{"M", 16384}, {"N", 1000}}},
    {"P1", "avgpool2d", {{"N", 16}, {"C", 48}, {"H", 48}, {"W", 48}, {"kernel", 2}, {"stride", 2}, {"pad", 0}}},
    {"P2", "avgpool2d", {{"N", 128}, {"C", 168}, {"H", 83}, {"W", 83}, {"kernel", 2}, {"stride", 2}, {"pad", 0}}},
    {"P3", "avgpool2d", {{"N", 128}, {"C", 617}, {"H", 21}, {"W", 21}, {"kernel", 3}, {"stride", 2}, {"pad", 0}}},
};

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::optional<HardwareDesc> loadHw(const std::string &name, SourceManager &sm, DiagEngine &diags) {
  std::string path = std::string(TK_SOURCE_STDLIB_DIR) + "/targets/" + name + ".hw";
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return parseHardwareDesc(ss.str(), sm.addFile(path, ss.str()), diags);
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> hws;
  size_t limit = 2000000;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--hw" && i + 1 < argc) hws.push_back(argv[++i]);
    else if (a == "--limit" && i + 1 < argc) limit = std::stoull(argv[++i]);
    else {
      std::cerr << "usage: tk_construct_bench [--hw NAME]... [--limit N]\n";
      return 2;
    }
  }
  if (hws.empty()) hws = {"zen5-2c", "h100"};
  SourceManager sm;
  DiagEngine diags(sm);
  auto m = bench::tableIVModule(sm, diags);
  if (!m) return 1;
  fmt::print("| hw | op | Gensor ms | Roller ms | exhaustive ms (states) | est. exhaustive / Gensor | est. Roller / "
             "Gensor | est. no-vThread / Gensor | Gensor tiling |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (const std::string &hwName : hws) {
    auto hw = loadHw(hwName, sm, diags);
    if (!hw) return 1;
    for (const Case &c : kCases) {
      Space space(buildLoopNest(*m->findOp(c.op), c.shape), *hw);
      auto t0 = std::chrono::steady_clock::now();
      GensorResult g = runGensor(space, {});
      double gMs = msSince(t0);
      t0 = std::chrono::steady_clock::now();
      Ranked r = rollerConstruct(space);
      double rMs = msSince(t0);
      t0 = std::chrono::steady_clock::now();
      ExhaustiveResult ex = exhaustiveBest(space, limit);
      double eMs = msSince(t0);
      GensorOptions noVt;
      noVt.vthread = false;
      GensorResult nv = runGensor(space, noVt);
      double gs = g.ranked.front().est.seconds;
      fmt::print("| {} | {} {} | {:.1f} | {:.2f} | {:.0f} ({}{}) | {:.3f} | {:.3f} | {:.3f} | {} |\n", hwName, c.id,
                 c.op, gMs, rMs, eMs, ex.states, ex.complete ? "" : ", truncated", ex.best.est.seconds / gs,
                 r.est.seconds / gs, nv.ranked.front().est.seconds / gs, g.ranked.front().state.str());
    }
  }
  return 0;
}
