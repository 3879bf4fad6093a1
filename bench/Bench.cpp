// tk_bench: GFLOP/s of tkc-compiled kernels next to oneDNN (and OpenBLAS
// when available), measured in the same process on the same buffers.
// Kernels: matmul (stdlib default schedule, and the hand-written
// examples/matmul.tk kernel), gemv, conv2d, add, row_sum, row_max,
// softmax, layernorm, maxpool2d and avgpool2d from the stdlib; memory-bound ones are also shown as % of a STREAM triad measured
// in the same run. Prints a Markdown table (docs/performance.md records one).
//
//   tk_bench [--tkc PATH] [--libdir DIR] [--source DIR] [--work DIR]
//            [--runs N] [--max-seconds S] [--threads T] [--filter TEXT]
//
// Each measurement: warm-up (>= 3 calls and >= 0.1 s), then up to N timed
// samples (stopping early once S seconds were spent), each repeating the
// call until it spans >= 20 ms; reports the median time per call. When the
// warm-up alone exceeds S seconds, its mean time per call is the result.
#include "bench/Baselines.h"
#include "bench/BenchCommand.h"
#include "bench/Measure.h"
#include "bench/StreamTriad.h"
#include "tests/e2e/NativeOp.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>
#include <unistd.h>

using namespace tk;

namespace {

using bench::Options;

using MatmulFn = int (*)(const float *, const float *, float *, int64_t, int64_t, int64_t);
using GemvFn = int (*)(const float *, const float *, float *, int64_t, int64_t);
using Conv2dFn = int (*)(const float *, const float *, int64_t, int64_t, int64_t, float *, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t, int64_t);

double medianSeconds(const bench::Run &run, const Options &o) {
  return bench::sampleSeconds(run, o.runs, o.maxSeconds);
}

using bench::Buffer;
using bench::randomBuffer;
double relDiff(const Buffer &a, const Buffer &b) { return bench::maxRelDiff(a, b); }

struct Row {
  std::string name;
  double flops;
  std::vector<std::pair<std::string, double>> seconds; // column -> median time
  double check;                                        // relDiff of the tkc result vs oneDNN's
  double bytes = 0; // memory-bound cases: bytes a kernel must move (0: compute bound)
};

// `stream`: STREAM triad bytes/s; memory-bound rows print the best tkc
// bandwidth as a percentage of it.
void printTable(const std::vector<Row> &rows, double stream) {
  std::vector<std::string> cols;
  for (const Row &r : rows)
    for (const auto &c : r.seconds)
      if (std::find(cols.begin(), cols.end(), c.first) == cols.end()) cols.push_back(c.first);
  std::cout << "\n| case |";
  for (const std::string &c : cols) std::cout << ' ' << c << " GFLOP/s |";
  std::cout << " best tkc / oneDNN | best tkc / best library | tkc % of STREAM | max rel diff |\n|---|";
  for (size_t i = 0; i < cols.size() + 4; ++i) std::cout << "---:|";
  std::cout << '\n';
  for (const Row &r : rows) {
    std::cout << "| " << r.name << " |";
    double bestTkc = 0, dnnl = 0, bestLib = 0;
    for (const std::string &c : cols) {
      auto it = std::find_if(r.seconds.begin(), r.seconds.end(), [&](auto &p) { return p.first == c; });
      if (it == r.seconds.end()) {
        std::cout << " – |";
        continue;
      }
      double g = r.flops / it->second * 1e-9;
      if (c.rfind("tkc", 0) == 0) bestTkc = std::max(bestTkc, g);
      if (c == "oneDNN") dnnl = g;
      if (c.rfind("tkc", 0) != 0) bestLib = std::max(bestLib, g);
      std::cout << fmt::format(" {:.2f} |", g);
    }
    auto ratio = [&](double lib) { return lib > 0 ? fmt::format(" {:.3f} |", bestTkc / lib) : " – |"; };
    std::string pct = r.bytes > 0 && stream > 0
                          ? fmt::format(" {:.0f}% |", 100.0 * (r.bytes * bestTkc / r.flops * 1e9) / stream)
                          : " – |";
    std::cout << ratio(dnnl) << ratio(bestLib) << fmt::format("{} {:.1e} |", pct, r.check) << '\n';
  }
}

std::unique_ptr<e2e::NativeLibrary> load(const std::string &file, const Options &o) {
  std::string error;
  auto lib = e2e::NativeLibrary::build(file, o.compile, &error);
  if (!lib) std::cerr << "tk_bench: " << error;
  return lib;
}

// Runs a tkc kernel, turning a non-zero status into a hard error.
template <typename F> bench::Run checked(F call) {
  return [call] {
    if (int st = call()) {
      std::cerr << "tk_bench: tkc kernel returned status " << st << "\n";
      std::exit(1);
    }
  };
}

} // namespace

int main(int argc, char **argv) {
  bench::execWithLibraryEnvironment(argv);
  Options o;
  if (!bench::parseOptions(argc, argv, "tk_bench", o)) return 2;
  // The tkc runtime reads TK_NUM_THREADS once, at its first parallel loop.
  setenv("TK_NUM_THREADS", fmt::format("{}", o.threads).c_str(), 1);
  bench::setBaselineThreads(o.threads);
  auto linalg = load(o.source + "/stdlib/std/linalg.tk", o);
  auto nn = load(o.source + "/stdlib/std/nn.tk", o);
  auto example = load(o.source + "/examples/matmul.tk", o);
  auto elementwise = load(o.source + "/stdlib/std/elementwise.tk", o);
  auto reduce = load(o.source + "/stdlib/std/reduce.tk", o);
  if (!linalg || !nn || !example || !elementwise || !reduce) return 2;
  auto stdMatmul = reinterpret_cast<MatmulFn>(linalg->symbol("matmul"));
  auto kernelMatmul = reinterpret_cast<MatmulFn>(example->symbol("matmul"));
  auto stdGemv = reinterpret_cast<GemvFn>(linalg->symbol("gemv"));
  auto stdConv = reinterpret_cast<Conv2dFn>(nn->symbol("conv2d"));
  if (!stdMatmul || !kernelMatmul || !stdGemv || !stdConv) {
    std::cerr << "tk_bench: a compiled library lacks matmul, gemv or conv2d\n";
    return 2;
  }

  std::mt19937 rng(42);
  std::vector<Row> rows;
  auto wanted = [&](const std::string &name) { return name.find(o.filter) != std::string::npos; };
  auto progress = [](const Row &r) { std::cerr << "measured " << r.name << "\n"; };

  const int64_t shapes[][3] = {{256, 256, 256},   {512, 512, 512},     {1024, 1024, 1024}, {2048, 2048, 2048},
                               {4096, 64, 4096}, {16384, 1024, 64}, {16, 4096, 4096},
                               {4096, 4, 1024}};
  for (const auto &s : shapes) {
    int64_t M = s[0], K = s[1], N = s[2];
    Row row{fmt::format("matmul {}x{}x{}", M, K, N), 2.0 * M * K * N, {}, 0};
    if (!wanted(row.name)) continue;
    auto A = randomBuffer(M * K, rng), B = randomBuffer(K * N, rng);
    Buffer C(M * N), Cref(M * N);
    row.seconds.push_back({"tkc std", medianSeconds(checked([&] { return stdMatmul(A.data(), B.data(), C.data(), M, K, N); }), o)});
    row.seconds.push_back({"tkc kernel", medianSeconds(checked([&] { return kernelMatmul(A.data(), B.data(), C.data(), M, K, N); }), o)});
    row.seconds.push_back({"oneDNN", medianSeconds(bench::onednnMatmul(A.data(), B.data(), Cref.data(), M, K, N), o)});
    if (bench::haveOpenBlas())
      row.seconds.push_back({"OpenBLAS", medianSeconds(bench::openblasMatmul(A.data(), B.data(), Cref.data(), M, K, N), o)});
    row.check = relDiff(C, Cref);
    progress(row);
    rows.push_back(row);
  }

  const int64_t gemvShapes[][2] = {{4096, 4096}, {16384, 1000}};
  for (const auto &g : gemvShapes) {
    int64_t M = g[0], N = g[1];
    Row row{fmt::format("gemv {}x{}", M, N), 2.0 * M * N, {}, 0, 4.0 * (M * N + M + N)};
    if (!wanted(row.name)) continue;
    auto A = randomBuffer(M * N, rng), x = randomBuffer(N, rng);
    Buffer y(M), yref(M);
    row.seconds.push_back({"tkc std", medianSeconds(checked([&] { return stdGemv(A.data(), x.data(), y.data(), M, N); }), o)});
    row.seconds.push_back({"oneDNN", medianSeconds(bench::onednnMatmul(A.data(), x.data(), yref.data(), M, N, 1), o)});
    if (bench::haveOpenBlas())
      row.seconds.push_back({"OpenBLAS", medianSeconds(bench::openblasGemv(A.data(), x.data(), yref.data(), M, N), o)});
    row.check = relDiff(y, yref);
    progress(row);
    rows.push_back(row);
  }

  // ResNet-style 3x3 (64 -> 64 channels) and 1x1 (256 -> 64) convolutions.
  const int64_t convShapes[][4] = {{64, 64, 3, 1}, {256, 64, 1, 0}};
  for (const auto &cs : convShapes) {
    int64_t N = 1, C = cs[0], H = 56, W = 56, F = cs[1], R = cs[2], S = cs[2], pad = cs[3];
    Row row{fmt::format("conv2d 1x{}x56x56 F{} {}x{} s1 p{}", C, F, R, S, pad), 2.0 * N * F * H * W * C * R * S, {}, 0};
    if (!wanted(row.name)) continue;
    auto X = randomBuffer(N * C * H * W, rng), Wt = randomBuffer(F * C * R * S, rng);
    Buffer O(N * F * H * W), Oref(N * F * H * W);
    row.seconds.push_back({"tkc std", medianSeconds(checked([&] {
                             return stdConv(X.data(), Wt.data(), 1, pad, 1, O.data(), N, C, H, W, F, R, S);
                           }), o)});
    row.seconds.push_back({"oneDNN", medianSeconds(bench::onednnConv2d(X.data(), Wt.data(), Oref.data(), N, C, H, W, F, R, S, 1, pad), o)});
    row.check = relDiff(O, Oref);
    progress(row);
    rows.push_back(row);
  }
  // Memory-bound ops: judged by bandwidth against STREAM (no library column).
  if (wanted("add 16M")) {
    int64_t N = int64_t(16) << 20;
    Row row{"add 16M", double(N), {}, 0, 12.0 * N};
    auto X = randomBuffer(N, rng), Y = randomBuffer(N, rng);
    Buffer Z(N);
    auto fn = reinterpret_cast<int (*)(const float *, const float *, float *, int64_t)>(elementwise->symbol("add"));
    row.seconds.push_back({"tkc std", medianSeconds(checked([&] { return fn(X.data(), Y.data(), Z.data(), N); }), o)});
    progress(row);
    rows.push_back(row);
  }
  for (const char *name : {"row_sum", "row_max"}) {
    int64_t M = 4096, N = 4096;
    Row row{std::string(name) + " 4096x4096", double(M * N), {}, 0, 4.0 * (M * N + M)};
    if (!wanted(row.name)) continue;
    auto X = randomBuffer(M * N, rng);
    Buffer Y(M);
    auto fn = reinterpret_cast<int (*)(const float *, float *, int64_t, int64_t)>(reduce->symbol(name));
    row.seconds.push_back({"tkc std", medianSeconds(checked([&] { return fn(X.data(), Y.data(), M, N); }), o)});
    progress(row);
    rows.push_back(row);
  }
  // Softmax and layernorm over 4096-wide rows: one read of X, one write of Y.
  for (const char *name : {"softmax", "layernorm"}) {
    int64_t M = 2048, N = 4096;
    Row row{std::string(name) + " 2048x4096", double(M * N), {}, 0, 8.0 * M * N};
    if (!wanted(row.name)) continue;
    auto X = randomBuffer(M * N, rng), gamma = randomBuffer(N, rng), beta = randomBuffer(N, rng);
    Buffer Y(M * N);
    bench::Run run;
    if (std::string(name) == "softmax") {
      auto fn = reinterpret_cast<int (*)(const float *, float *, int64_t, int64_t)>(nn->symbol("softmax"));
      run = checked([&, fn] { return fn(X.data(), Y.data(), M, N); });
    } else {
      using LayernormFn = int (*)(const float *, const float *, const float *, float, float *, int64_t, int64_t);
      auto fn = reinterpret_cast<LayernormFn>(nn->symbol("layernorm"));
      run = checked([&, fn] { return fn(X.data(), gamma.data(), beta.data(), 1e-5f, Y.data(), M, N); });
    }
    row.seconds.push_back({"tkc std", medianSeconds(run, o)});
    progress(row);
    rows.push_back(row);
  }
  // 3x3 stride-2 pooling of a ResNet stem activation (N=8, 64 ch, 112x112).
  for (const char *name : {"maxpool2d", "avgpool2d"}) {
    int64_t N = 8, C = 64, H = 112, W = 112, k = 3, stride = 2, pad = 1;
    int64_t OH = (H + 2 * pad - k) / stride + 1, OW = (W + 2 * pad - k) / stride + 1;
    Row row{std::string(name) + " 8x64x112x112 3x3 s2", double(N * C * OH * OW * k * k), {}, 0,
            4.0 * (N * C * H * W + N * C * OH * OW)};
    if (!wanted(row.name)) continue;
    auto X = randomBuffer(N * C * H * W, rng);
    Buffer Y(N * C * OH * OW);
    using PoolFn = int (*)(const float *, int64_t, int64_t, int64_t, float *, int64_t, int64_t, int64_t, int64_t);
    auto fn = reinterpret_cast<PoolFn>(nn->symbol(name));
    row.seconds.push_back({"tkc std", medianSeconds(checked([&] { return fn(X.data(), k, stride, pad, Y.data(), N, C, H, W); }), o)});
    progress(row);
    rows.push_back(row);
  }
  std::cout << "threads: " << o.threads << ", OMP_WAIT_POLICY=" << getenv("OMP_WAIT_POLICY") << ", median of up to " << o.runs << " samples after warm-up\n";
  double stream = bench::streamTriadBytesPerSecond(o.threads, 5);
  std::cout << "STREAM triad (" << o.threads << " threads, best of 5): " << stream * 1e-9 << " GB/s\n";
  printTable(rows, stream);
  return 0;
}
