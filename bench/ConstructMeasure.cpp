// tk_construct_measure: Gensor's Table IV operators with *timed* kernels
// (docs/performance.md, "Construction, measured"). Per operator, at a
// shape scaled down so that one call takes well under a second on two
// cores (the batch, or M for GEMM and GEMV), it constructs tilings with
// Gensor, the Roller baseline, exhaustive enumeration (the `--keep` best by
// estimate) and Gensor without setVThread; builds each state into a kernel
// with StateSchedule (the same code generator for all four), JIT-compiles
// and times it (median of 7 calls, 3 for slow ones) and checks its result
// against tkc's default kernel for the op, which is timed too, as is the
// GEMM kernel ConstructSchedule builds from Gensor's state and, when built
// with oneDNN, oneDNN's primitive on the same inputs.
//
//   tk_construct_measure [--hw NAME|host] [--ops C1,M2,..] [--limit N] [--keep N]
//
// Prints two Markdown tables: GFLOP/s and ratios, then the chosen states.
#include "bench/TimeKernel.h"
#include "bench/TableIVModule.h"
#include "frontend/driver/HostHardware.h"
#include "scheduler/cpu/ConstructSchedule.h"
#include "scheduler/cpu/StateSchedule.h"
#include "scheduler/construct/Baselines.h"
#ifdef TK_MEASURE_HAVE_ONEDNN
#include "bench/Baselines.h"
#endif

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

using namespace tk;
using namespace tk::construct;

namespace {

using Shape = std::map<std::string, int64_t>;

struct Case {
  const char *id, *op;
  Shape full;      // Table IV
  Shape scaled;    // what is constructed and timed
  double flopsPerPoint; // 2: multiply-add; 1: pooling's add
};

Shape with(Shape s, const Shape &changes) {
  for (const auto &[k, v] : changes) s[k] = v;
  return s;
}

std::vector<Case> cases() {
  Shape c1{{"N", 128}, {"C", 256}, {"H", 30}, {"W", 30}, {"F", 256}, {"R", 3}, {"S", 3}, {"stride", 2}, {"pad", 0}, {"dilation", 1}};
  Shape c2{{"N", 128}, {"C", 128}, {"H", 28}, {"W", 28}, {"F", 128}, {"R", 3}, {"S", 3}, {"stride", 1}, {"pad", 0}, {"dilation", 1}};
  Shape c3{{"N", 128}, {"C", 128}, {"H", 58}, {"W", 58}, {"F", 128}, {"R", 3}, {"S", 3}, {"stride", 2}, {"pad", 0}, {"dilation", 1}};
  Shape p1{{"N", 16}, {"C", 48}, {"H", 48}, {"W", 48}, {"kernel", 2}, {"stride", 2}, {"pad", 0}};
  Shape p2{{"N", 128}, {"C", 168}, {"H", 83}, {"W", 83}, {"kernel", 2}, {"stride", 2}, {"pad", 0}};
  Shape p3{{"N", 128}, {"C", 617}, {"H", 21}, {"W", 21}, {"kernel", 3}, {"stride", 2}, {"pad", 0}};
  return {
      {"C1", "conv2d", c1, with(c1, {{"N", 2}}), 2},
      {"C2", "conv2d", c2, with(c2, {{"N", 2}}), 2},
      {"C3", "conv2d", c3, with(c3, {{"N", 2}}), 2},
      {"M1", "matmul", {{"M", 8192}, {"K", 8192}, {"N", 8192}}, {{"M", 1024}, {"K", 1024}, {"N", 1024}}, 2},
      {"M2", "matmul", {{"M", 65536}, {"K", 4}, {"N", 1024}}, {{"M", 4096}, {"K", 4}, {"N", 1024}}, 2},
      {"M3", "matmul", {{"M", 65536}, {"K", 1024}, {"N", 4096}}, {{"M", 256}, {"K", 1024}, {"N", 4096}}, 2},
      {"V1", "gemv", {{"M", 16384}, {"N", 16384}}, {{"M", 1024}, {"N", 16384}}, 2},
      {"V2", "gemv", {{"M", 16384}, {"N", 8192}}, {{"M", 2048}, {"N", 8192}}, 2},
      {"V3", "gemv", {{"M", 16384}, {"N", 1000}}, {{"M", 16384}, {"N", 1000}}, 2},
      {"P1", "avgpool2d", p1, p1, 1},
      {"P2", "avgpool2d", p2, with(p2, {{"N", 8}}), 1},
      {"P3", "avgpool2d", p3, with(p3, {{"N", 8}}), 1},
  };
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::optional<HardwareDesc> loadHw(const std::string &name, SourceManager &sm, DiagEngine &diags) {
  if (name == "host") return driver::detectHostHardware();
  std::string path = std::string(TK_SOURCE_STDLIB_DIR) + "/targets/" + name + ".hw";
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return parseHardwareDesc(ss.str(), sm.addFile(path, ss.str()), diags);
}

std::string shapeText(const Case &c) {
  std::string s;
  for (const auto &[k, v] : c.scaled)
    if (c.full.at(k) != v) s += fmt::format("{}{}={} (of {})", s.empty() ? "" : " ", k, v, c.full.at(k));
  return s.empty() ? "full size" : s;
}

// Times kernels of one op at one shape; every output is checked against
// the first kernel timed (tkc's default), whose inputs oneDNN also reads.
struct Timer {
  CpuTarget target;
  Shape values;
  double flops;
  size_t outIndex; // the output's buffer: after the input tensors
  std::unique_ptr<looptune::JitKernel> reference;
  double worstDiff = 0;

  double gflops(double sec) const { return flops / sec / 1e9; }
  double time(const ir::KernelPtr &k) {
    auto jit = bench::jitKernel(k, target, values);
    if (jit->call() != 0) throw InternalError("tk_construct_measure: " + k->name + " returned a non-zero status");
    if (reference) worstDiff = std::max(worstDiff, bench::relDiff(jit->buffer(outIndex), reference->buffer(outIndex)));
    double sec = bench::medianSeconds([&] { jit->call(); });
    if (!reference) reference = std::move(jit);
    return sec;
  }
#ifdef TK_MEASURE_HAVE_ONEDNN
  double onednn(const Case &c) {
    std::vector<float> out(reference->buffer(outIndex).size());
    const float *a = reference->buffer(0).data(), *b = reference->buffer(1).data();
    auto v = [&](const char *n) { return values.at(n); };
    bench::Run run;
    std::string op = c.op;
    if (op == "matmul") run = bench::onednnMatmul(a, b, out.data(), v("M"), v("K"), v("N"));
    else if (op == "gemv") run = bench::onednnMatmul(a, b, out.data(), v("M"), v("N"), 1);
    else if (op == "conv2d")
      run = bench::onednnConv2d(a, b, out.data(), v("N"), v("C"), v("H"), v("W"), v("F"), v("R"), v("S"), v("stride"),
                                v("pad"));
    else run = bench::onednnAvgPool2d(a, out.data(), v("N"), v("C"), v("H"), v("W"), v("kernel"), v("stride"), v("pad"));
    run();
    worstDiff = std::max(worstDiff, bench::relDiff(out, reference->buffer(outIndex)));
    return bench::medianSeconds(run);
  }
#endif
};

struct Options {
  std::string hw = "host";
  std::set<std::string> ops;
  size_t limit = 1000000, keep = 8;
};

bool parse(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return false;
    if (a == "--hw") o.hw = argv[++i];
    else if (a == "--limit") o.limit = std::stoull(argv[++i]);
    else if (a == "--keep") o.keep = std::max<size_t>(1, std::stoull(argv[++i]));
    else if (a == "--ops") {
      std::stringstream ss(argv[++i]);
      for (std::string id; std::getline(ss, id, ',');) o.ops.insert(id);
    } else return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
#ifdef TK_MEASURE_HAVE_ONEDNN
  bench::execWithPassiveOpenMp(argv);
#endif
  Options o;
  if (!parse(argc, argv, o)) {
    std::cerr << "usage: tk_construct_measure [--hw NAME|host] [--ops C1,M2,..] [--limit N] [--keep N]\n";
    return 2;
  }
  SourceManager sm;
  DiagEngine diags(sm);
  auto m = bench::tableIVModule(sm, diags);
  auto hw = loadHw(o.hw, sm, diags);
  std::string err;
  auto target = resolveCpuTarget("host", &err);
  if (!m || !hw || !target) {
    std::cerr << "tk_construct_measure: setup failed " << err << "\n";
    return 1;
  }
  const TargetDesc isa = cpuTargetDesc(*target);
#ifdef TK_MEASURE_HAVE_ONEDNN
  bench::setBaselineThreads(2);
  const char *dnnlHead = " oneDNN |";
#else
  const char *dnnlHead = " oneDNN (not built) |";
#endif
  std::printf("| op | scaled shape | Gensor ms (scaled / full) | exhaustive states | Gensor | exhaustive best | Roller | "
              "no-vThread | Gensor packed | tkc default |%s Gensor / exhaustive | Gensor / Roller | tkc default / "
              "oneDNN | max rel diff |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
              dnnlHead);
  std::ostringstream states;
  for (const Case &c : cases()) {
    if (!o.ops.empty() && !o.ops.count(c.id)) continue;
    ir::OpPtr op;
    for (const ir::OpPtr &x : m->ops)
      if (x->name == c.op) op = x;
    Space space(buildLoopNest(*op, c.scaled), *hw);
    auto t0 = std::chrono::steady_clock::now();
    GensorResult g = runGensor(space, {});
    double gMs = msSince(t0);
    t0 = std::chrono::steady_clock::now();
    runGensor(Space(buildLoopNest(*op, c.full), *hw), {});
    double gFullMs = msSince(t0);
    Ranked roller = rollerConstruct(space);
    ExhaustiveResult ex = exhaustiveBest(space, o.limit, o.keep);
    GensorOptions noVt;
    noVt.vthread = false;
    GensorResult nv = runGensor(space, noVt);

    Timer t{*target, assumedValues(*op, c.scaled), space.nest().points() * c.flopsPerPoint, 0, nullptr, 0};
    for (const ir::Param &p : op->inputs) t.outIndex += p.isScalar() ? 0 : 1;
    ConstructOptions co;
    co.hw = *hw;
    co.shapes = c.scaled;
    double tkcSec = t.time(bench::productionKernel(op, co, isa));
    std::map<ETIR, double> timed; // a state reached by two searches is timed once
    auto timeState = [&](const ETIR &s) {
      if (!timed.count(s)) timed[s] = t.time(stateSchedule(op, space, s));
      return timed[s];
    };
    double gSec = timeState(g.ranked.front().state), rSec = timeState(roller.state);
    double nvSec = timeState(nv.ranked.front().state);
    double exSec = INFINITY;
    const ETIR *exBest = nullptr;
    for (const Ranked &r : ex.top)
      if (double s = timeState(r.state); s < exSec) exSec = s, exBest = &r.state;
    std::string packed = "—";
    if (constructScheduleApplies(*op)) {
      packed = std::to_string(t.gflops(t.time(
          constructSchedule(op, contractionTilesFromState(space, g.ranked.front().state, isa)))));
      packed = packed.substr(0, packed.find('.') + 2);
    }
    std::string dnnl = "—", tkcVsDnnl = "—";
#ifdef TK_MEASURE_HAVE_ONEDNN
    double dSec = t.onednn(c);
    dnnl = fmt::format("{:.1f}", t.gflops(dSec));
    tkcVsDnnl = fmt::format("{:.2f}", dSec / tkcSec);
#endif
    std::printf("| %s %s | %s | %.0f / %.0f | %zu%s | %.1f | %.1f | %.1f | %.1f%s | %s | %.1f | %s | %.2f | %.2f | %s | "
                "%.1e |\n",
                c.id, c.op, shapeText(c).c_str(), gMs, gFullMs, ex.states, ex.complete ? "" : " (truncated)",
                t.gflops(gSec), t.gflops(exSec), t.gflops(rSec), t.gflops(nvSec),
                nv.ranked.front().state == g.ranked.front().state ? " (same state)" : "", packed.c_str(),
                t.gflops(tkcSec), dnnl.c_str(), exSec / gSec, rSec / gSec, tkcVsDnnl.c_str(), t.worstDiff);
    std::fflush(stdout);
    states << "| " << c.id << " | " << g.ranked.front().state.str() << " | " << (exBest ? exBest->str() : "—") << " | "
           << roller.state.str() << " |\n";
  }
  std::printf("\n| op | Gensor state | exhaustive best (measured) | Roller state |\n|---|---|---|---|\n%s",
              states.str().c_str());
  return 0;
}
