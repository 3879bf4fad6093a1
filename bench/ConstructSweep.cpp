// tk_construct_sweep: the dynamic-shape sweep (docs/performance.md,
// "Construction, measured"). 50 random shapes (fixed seed; 25 matmul, 25
// conv2d, sizes log-uniform and small enough for a loaded 2-core machine).
// For each shape a fresh tkc process constructs the op's kernel for that
// shape (`--shape-hint` for every symbol and scalar; timed with
// `--emit=mapping`, i.e. frontend + construction, no code generation),
// then a second tkc process compiles it (`--emit=obj`, linked and loaded),
// and the kernel is timed against oneDNN on the same inputs (median of 7
// calls each). Prints one row per shape, the total construction time and
// the geometric mean of tkc's speed relative to oneDNN's, per op and overall.
//
//   tk_construct_sweep [--tkc PATH] [--work DIR] [--shapes N] [--seed N] [--tkc-flag=FLAG]...
#include "bench/Baselines.h"
#include "bench/TimeKernel.h"
#include "tests/e2e/NativeOp.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>

using namespace tk;
namespace fs = std::filesystem;

namespace {

using Shape = std::vector<std::pair<std::string, int64_t>>;
using MatmulFn = int (*)(const float *, const float *, float *, int64_t, int64_t, int64_t);
using Conv2dFn = int (*)(const float *, const float *, int64_t, int64_t, int64_t, float *, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t);

int64_t logUniform(std::mt19937_64 &rng, int64_t lo, int64_t hi) {
  std::uniform_real_distribution<double> d(std::log(double(lo)), std::log(double(hi) + 1));
  return std::clamp<int64_t>(int64_t(std::exp(d(rng))), lo, hi);
}

Shape randomMatmul(std::mt19937_64 &rng) {
  return {{"M", logUniform(rng, 16, 1024)}, {"K", logUniform(rng, 16, 1024)}, {"N", logUniform(rng, 16, 1024)}};
}

Shape randomConv(std::mt19937_64 &rng) {
  int64_t r = std::array<int64_t, 3>{1, 3, 5}[rng() % 3], h = logUniform(rng, 8, 56);
  return {{"N", logUniform(rng, 1, 4)}, {"C", logUniform(rng, 8, 256)}, {"H", h}, {"W", h},
          {"F", logUniform(rng, 8, 256)}, {"R", r}, {"S", r}, {"stride", int64_t(1 + rng() % 2)},
          {"pad", r / 2}, {"dilation", 1}};
}

int64_t at(const Shape &s, const std::string &k) {
  for (const auto &[n, v] : s)
    if (n == k) return v;
  throw InternalError("tk_construct_sweep: no " + k);
}

std::string text(const Shape &s) {
  std::string out;
  for (const auto &[n, v] : s) out += fmt::format("{}{}={}", out.empty() ? "" : " ", n, v);
  return out;
}

std::string quote(const std::string &s) { return "'" + s + "'"; }

struct Row {
  double constructSec, tkcSec, dnnlSec, diff;
};

} // namespace

int main(int argc, char **argv) {
  bench::execWithPassiveOpenMp(argv);
  e2e::CompileConfig cfg;
  cfg.tkc = TK_MEASURE_TKC;
  cfg.runtimeLibDir = TK_MEASURE_LIBDIR;
  std::string work = "construct-sweep-work";
  int shapes = 50;
  uint64_t seed = 5;
  std::vector<std::string> extra;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--tkc") cfg.tkc = value();
    else if (a == "--work") work = value();
    else if (a == "--shapes") shapes = std::stoi(value());
    else if (a == "--seed") seed = std::stoull(value());
    else if (a.rfind("--tkc-flag=", 0) == 0) extra.push_back(a.substr(11));
    else {
      std::cerr << "usage: tk_construct_sweep [--tkc PATH] [--work DIR] [--shapes N] [--seed N] [--tkc-flag=FLAG]...\n";
      return 2;
    }
  }
  fs::create_directories(work);
  std::string files[2] = {work + "/sweep_matmul.tk", work + "/sweep_conv2d.tk"};
  std::ofstream(files[0]) << "import \"std/linalg.tk\";\nexport matmul;\n";
  std::ofstream(files[1]) << "import \"std/nn.tk\";\nexport conv2d;\n";
  std::string stdlib = "--stdlib=" + std::string(TK_SOURCE_STDLIB_DIR);
  bench::setBaselineThreads(2);
  std::mt19937_64 rng(seed);
  fmt::print("| # | op | shape | construct s | tkc GFLOP/s | oneDNN GFLOP/s | tkc / oneDNN | max rel diff |\n"
             "|---:|---|---|---:|---:|---:|---:|---:|\n");
  std::vector<Row> rows[2];
  for (int i = 0; i < shapes; ++i) {
    int kind = i % 2; // alternate, so a cut-short run still has both
    Shape s = kind == 0 ? randomMatmul(rng) : randomConv(rng);
    std::vector<std::string> flags = {"-O2", "--target=host", stdlib};
    flags.insert(flags.end(), extra.begin(), extra.end());
    for (const auto &[n, v] : s) // hints are positive: pad = 0 keeps the default
      if (v > 0) flags.push_back(fmt::format("--shape-hint={}={}", n, v));
    std::string cmd = quote(cfg.tkc);
    for (const std::string &f : flags) cmd += " " + quote(f);
    cmd += " --emit=mapping " + quote(files[kind]) + " > /dev/null";
    auto t0 = std::chrono::steady_clock::now();
    if (std::system(cmd.c_str()) != 0) {
      std::cerr << "tk_construct_sweep: failed: " << cmd << "\n";
      return 1;
    }
    double constructSec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cfg.tkcFlags = flags;
    cfg.workDir = fmt::format("{}/{}", work, i); // a fresh path: dlopen does not reuse the last library
    std::string error;
    auto lib = e2e::NativeLibrary::build(files[kind], cfg, &error);
    if (!lib) {
      std::cerr << "tk_construct_sweep: " << error << "\n";
      return 1;
    }
    std::mt19937 gen(42);
    std::uniform_real_distribution<float> dist(-1, 1);
    auto random = [&](size_t n) {
      std::vector<float> v(n);
      for (float &x : v) x = dist(gen);
      return v;
    };
    double flops;
    std::vector<float> got, want;
    std::function<int()> tkc;
    bench::Run dnnl;
    std::vector<float> a, b;
    if (kind == 0) {
      int64_t M = at(s, "M"), K = at(s, "K"), N = at(s, "N");
      a = random(M * K), b = random(K * N), got.assign(M * N, 0), want.assign(M * N, 0);
      auto fn = reinterpret_cast<MatmulFn>(lib->symbol("matmul"));
      tkc = [=, &a, &b, &got] { return fn(a.data(), b.data(), got.data(), M, K, N); };
      dnnl = bench::onednnMatmul(a.data(), b.data(), want.data(), M, K, N);
      flops = 2.0 * M * K * N;
    } else {
      int64_t N = at(s, "N"), C = at(s, "C"), H = at(s, "H"), W = at(s, "W"), F = at(s, "F"), R = at(s, "R"),
              st = at(s, "stride"), pad = at(s, "pad");
      int64_t OH = (H + 2 * pad - R) / st + 1, OW = (W + 2 * pad - R) / st + 1;
      a = random(N * C * H * W), b = random(F * C * R * R), got.assign(N * F * OH * OW, 0), want = got;
      auto fn = reinterpret_cast<Conv2dFn>(lib->symbol("conv2d"));
      tkc = [=, &a, &b, &got] { return fn(a.data(), b.data(), st, pad, 1, got.data(), N, C, H, W, F, R, R); };
      dnnl = bench::onednnConv2d(a.data(), b.data(), want.data(), N, C, H, W, F, R, R, st, pad);
      flops = 2.0 * N * F * OH * OW * C * R * R;
    }
    if (tkc() != 0) {
      std::cerr << "tk_construct_sweep: the kernel returned a non-zero status at " << text(s) << "\n";
      return 1;
    }
    dnnl();
    Row row{constructSec, bench::medianSeconds([&] { tkc(); }), bench::medianSeconds(dnnl), bench::relDiff(got, want)};
    rows[kind].push_back(row);
    fmt::print("| {} | {} | {} | {:.2f} | {:.1f} | {:.1f} | {:.2f} | {:.1e} |\n", i + 1,
               kind == 0 ? "matmul" : "conv2d", text(s), row.constructSec, flops / row.tkcSec / 1e9,
               flops / row.dnnlSec / 1e9, row.dnnlSec / row.tkcSec, row.diff);
    std::fflush(stdout);
  }
  double total = 0, logSum = 0;
  size_t n = 0;
  for (int kind = 0; kind < 2; ++kind) {
    double kLog = 0;
    for (const Row &r : rows[kind]) total += r.constructSec, kLog += std::log(r.dnnlSec / r.tkcSec);
    logSum += kLog;
    n += rows[kind].size();
    if (!rows[kind].empty())
      fmt::print("\n{}: {} shapes, geometric mean tkc / oneDNN speed {:.3f}", kind == 0 ? "matmul" : "conv2d",
                 rows[kind].size(), std::exp(kLog / double(rows[kind].size())));
  }
  if (n)
    fmt::print("\nall: {} shapes, construction {:.1f} s in total ({:.2f} s per process), geometric mean tkc / oneDNN "
               "{:.3f}\n",
               n, total, total / double(n), std::exp(logSum / double(n)));
  return 0;
}
