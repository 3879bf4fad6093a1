// tk_construct_sweep: tkc's kernels on many shapes against oneDNN
// (docs/performance.md, "Random shapes"). For each shape a fresh tkc
// process constructs the op's kernel for that shape (`--shape-hint` for
// every symbol and scalar; timed with `--emit=mapping`, i.e. frontend +
// construction, no code generation), then a second tkc process compiles it
// (`--emit=obj`, linked and loaded), and the kernel is timed against oneDNN
// on the same inputs (median of 7 calls each). Prints one row per shape,
// the geometric mean of tkc's speed relative to oneDNN's per op family and
// overall, the worst five shapes and how many fall below 0.5x.
//
//   tk_construct_sweep [--tkc PATH] [--work DIR] [--shapes N] [--seed N] [--tkc-flag=FLAG]...
//       the original sweep: N (50) random shapes, matmul and conv2d alternating
//   tk_construct_sweep --wide [--random N] ...
//       every family (bench/SweepFamilies.h: matmul, conv2d, gemv, bmm,
//       depthwise, avgpool2d, softmax, layernorm, matmul_i8): its ResNet-50,
//       MobileNet-V2 and BERT-base layer shapes and N (4) random ones
//   tk_construct_sweep --check ...
//       correctness only, no timing: three tiny random shapes per family
//       (sizes 1, primes), each compared with oneDNN; exit status 1 on a
//       difference (a ctest)
#include "bench/SweepFamilies.h"
#include "bench/TimeKernel.h"
#include "tests/e2e/NativeOp.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

using namespace tk;
using namespace tk::bench;
namespace fs = std::filesystem;

namespace {

std::string quote(const std::string &s) { return "'" + s + "'"; }

struct Case {
  const SweepFamily *family;
  std::string label; // a model layer's name, or empty
  Shape shape;
};

struct Row {
  const Case *c;
  double constructSec, tkcSec, dnnlSec, diff;
  double ratio() const { return dnnlSec / tkcSec; }
};

struct Options {
  e2e::CompileConfig cfg;
  std::string work = "construct-sweep-work";
  int shapes = 50, random = 4;
  uint64_t seed = 5;
  bool wide = false, check = false;
  std::vector<std::string> extra;
  std::string filter; // keep the cases whose family, label or shape text contains it
};

std::vector<Case> cases(const std::vector<SweepFamily> &families, const Options &o) {
  std::mt19937_64 rng(o.seed);
  std::vector<Case> out;
  if (!o.wide && !o.check) {
    for (int i = 0; i < o.shapes; ++i) { // alternate, so a cut-short run still has both
      const SweepFamily &f = families[size_t(i % 2)];
      out.push_back({&f, "", f.random(rng, false)});
    }
    return out;
  }
  for (const SweepFamily &f : families) {
    if (o.wide)
      for (const auto &[label, shape] : f.named) out.push_back({&f, label, shape});
    for (int i = 0; i < (o.check ? 3 : o.random); ++i) out.push_back({&f, "", f.random(rng, o.check)});
  }
  // Filtered after drawing, so the kept shapes are those of the whole sweep.
  std::erase_if(out, [&](const Case &c) {
    return (c.family->name + " " + c.label + " " + shapeText(c.shape)).find(o.filter) == std::string::npos;
  });
  return out;
}

// Where main() writes a family's .tk file.
std::string sourceFile(const Options &o, const SweepFamily &f) { return fmt::format("{}/sweep_{}.tk", o.work, f.name); }

// Constructs, compiles and runs one case; nullopt after printing why.
std::optional<Row> run(const Case &c, const Options &o, int index) {
  std::string file = sourceFile(o, *c.family);
  std::vector<std::string> flags = {"-O2", "--target=host", "--stdlib=" + std::string(TK_SOURCE_STDLIB_DIR)};
  flags.insert(flags.end(), o.extra.begin(), o.extra.end());
  for (const auto &[n, v] : c.shape) // hints are positive: pad = 0 keeps the default
    if (v > 0) flags.push_back(fmt::format("--shape-hint={}={}", n, v));
  std::string cmd = quote(o.cfg.tkc);
  for (const std::string &f : flags) cmd += " " + quote(f);
  cmd += " --emit=mapping " + quote(file) + " > /dev/null";
  auto t0 = std::chrono::steady_clock::now();
  if (std::system(cmd.c_str()) != 0) {
    std::cerr << "tk_construct_sweep: failed: " << cmd << "\n";
    return std::nullopt;
  }
  double constructSec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  e2e::CompileConfig cfg = o.cfg;
  cfg.tkcFlags = flags;
  cfg.workDir = fmt::format("{}/{}", o.work, index); // a fresh path: dlopen does not reuse the last library
  std::string error;
  auto lib = e2e::NativeLibrary::build(file, cfg, &error);
  if (!lib) {
    std::cerr << "tk_construct_sweep: " << error << "\n";
    return std::nullopt;
  }
  PreparedCase p;
  c.family->prepare(c.shape, lib->symbol(c.family->symbol), p);
  if (int status = p.tkc(); status != 0) {
    std::cerr << fmt::format("tk_construct_sweep: {} returned status {} at {}\n", c.family->name, status,
                             shapeText(c.shape));
    return std::nullopt;
  }
  p.dnnl();
  // Integer results must match exactly: a difference counts as infinite.
  double diff = p.gotInt.empty() ? relDiff(p.got, p.want) : p.gotInt == p.wantInt ? 0 : INFINITY;
  Row row{&c, constructSec, 0, 0, diff};
  if (!o.check) {
    row.tkcSec = medianSeconds([&] { p.tkc(); });
    row.dnnlSec = medianSeconds(p.dnnl);
  }
  if (o.check)
    fmt::print("| {} | {} | {} | {:.1e} |\n", index + 1, c.family->name, shapeText(c.shape), row.diff);
  else
    fmt::print("| {} | {} | {}{} | {:.2f} | {:.1f} {} | {:.1f} | {:.2f} | {:.1e} |\n", index + 1, c.family->name,
               c.label.empty() ? "" : c.label + ": ", shapeText(c.shape), row.constructSec, p.work / row.tkcSec / 1e9,
               p.memoryBound ? "GB/s" : "GFLOP/s", p.work / row.dnnlSec / 1e9, row.ratio(), row.diff);
  std::fflush(stdout);
  return row;
}

void summary(const std::vector<Row> &rows) {
  std::map<std::string, std::pair<double, int>> logs; // family -> (sum of log ratios, count)
  std::vector<std::string> order;
  double all = 0, construct = 0;
  for (const Row &r : rows) {
    auto [it, fresh] = logs.insert({r.c->family->name, {0.0, 0}});
    if (fresh) order.push_back(r.c->family->name);
    it->second.first += std::log(r.ratio());
    it->second.second += 1;
    all += std::log(r.ratio());
    construct += r.constructSec;
  }
  for (const std::string &f : order)
    fmt::print("\n{}: {} shapes, geometric mean tkc / oneDNN speed {:.3f}", f, logs[f].second,
               std::exp(logs[f].first / logs[f].second));
  std::vector<const Row *> worst;
  for (const Row &r : rows) worst.push_back(&r);
  std::sort(worst.begin(), worst.end(), [](const Row *a, const Row *b) { return a->ratio() < b->ratio(); });
  size_t below = size_t(std::count_if(rows.begin(), rows.end(), [](const Row &r) { return r.ratio() < 0.5; }));
  fmt::print("\nall: {} shapes, construction {:.1f} s in total ({:.2f} s per process), geometric mean tkc / oneDNN "
             "{:.3f}; {} below 0.5x\nworst five:\n",
             rows.size(), construct, construct / double(rows.size()), std::exp(all / double(rows.size())), below);
  for (size_t i = 0; i < std::min<size_t>(5, worst.size()); ++i)
    fmt::print("  {:.2f}x  {} {}{}\n", worst[i]->ratio(), worst[i]->c->family->name,
               worst[i]->c->label.empty() ? "" : worst[i]->c->label + ": ", shapeText(worst[i]->c->shape));
}

} // namespace

int main(int argc, char **argv) {
  execWithPassiveOpenMp(argv);
  Options o;
  o.cfg.tkc = TK_MEASURE_TKC;
  o.cfg.runtimeLibDir = TK_MEASURE_LIBDIR;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--tkc") o.cfg.tkc = value();
    else if (a == "--work") o.work = value();
    else if (a == "--shapes") o.shapes = std::stoi(value());
    else if (a == "--random") o.random = std::stoi(value());
    else if (a == "--seed") o.seed = std::stoull(value());
    else if (a == "--wide") o.wide = true;
    else if (a == "--check") o.check = true;
    else if (a == "--filter") o.filter = value();
    else if (a.rfind("--tkc-flag=", 0) == 0) o.extra.push_back(a.substr(11));
    else {
      std::cerr << "usage: tk_construct_sweep [--wide [--random N] | --check] [--tkc PATH] [--work DIR] [--shapes N] "
                   "[--seed N] [--filter TEXT] [--tkc-flag=FLAG]...\n";
      return 2;
    }
  }
  fs::create_directories(o.work);
  setBaselineThreads(2);
  std::vector<SweepFamily> families = sweepFamilies(TK_SOURCE_BENCH_OPS_DIR);
  for (const SweepFamily &f : families) std::ofstream(sourceFile(o, f)) << f.source;
  std::vector<Case> all = cases(families, o);
  if (o.check)
    fmt::print("| # | op | shape | max rel diff |\n|---:|---|---|---:|\n");
  else
    fmt::print("| # | op | shape | construct s | tkc | oneDNN | tkc / oneDNN | max rel diff |\n"
               "|---:|---|---|---:|---:|---:|---:|---:|\n");
  std::vector<Row> rows;
  bool failed = false;
  for (size_t i = 0; i < all.size(); ++i) {
    std::optional<Row> r = run(all[i], o, int(i));
    if (!r) return 1;
    // f32 sums over up to a few thousand terms in another order than oneDNN's
    failed |= !(r->diff <= 1e-4);
    rows.push_back(*r);
  }
  if (o.check) {
    fmt::print("{} shapes, {}\n", rows.size(), failed ? "DIFFERENCES above 1e-4" : "all within 1e-4 of oneDNN");
    return failed ? 1 : 0;
  }
  summary(rows);
  return 0;
}
