// tk_ops_bench: the custom-operator suite of issue 21 (bench/ops/custom_ops.tk:
// attention, linear + bias + activation, MLP, norms, softmax, GELU, batched
// and int8 matmul, einsum, gemm with alpha/beta, a triangular product,
// stencils) compiled by tkc with its default pipeline, timed in the same
// run as the libraries that have each op (oneDNN, OpenBLAS), plain C loops
// built by gcc -O3 -fopenmp -march=native (stencils), and PyTorch eager
// (bench/ops_torch.py, when `import torch` works). Prints a Markdown table:
// GFLOP/s for contractions, GB/s (bytes a kernel must move) for
// memory-bound ops, and tkc's ratio to the best baseline and to PyTorch.
//
//   tk_ops_bench [--tkc PATH] [--libdir DIR] [--source DIR] [--work DIR]
//                [--runs N] [--max-seconds S] [--threads T] [--filter TEXT]
//
// Timing as tk_bench (bench/Measure.h). docs/benchmarks.md describes it,
// docs/performance.md records a run.
#include "bench/OpsBench.h"
#include "bench/OpsBaselines.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <unistd.h>

using namespace tk;
using namespace tk::bench;

namespace tk::bench {

void Bench::measure(Row row, const std::function<int()> &tkc, const std::vector<std::pair<std::string, Run>> &baselines,
                    const std::function<double()> &check, TorchCase torchCase) {
  Run tkcRun = [&tkc] {
    if (int st = tkc()) {
      std::cerr << "tk_ops_bench: tkc kernel returned status " << st << "\n";
      std::exit(1);
    }
  };
  tkcRun();
  for (const auto &b : baselines)
    if (b.second)
      b.second();
  if (check)
    row.check = check();
  row.seconds.push_back({"tkc", bench::sampleSeconds(tkcRun, o.runs, o.maxSeconds)});
  for (const auto &b : baselines)
    if (b.second)
      row.seconds.push_back({b.first, bench::sampleSeconds(b.second, o.runs, o.maxSeconds)});
  torchCase.name = row.name;
  torch.push_back(torchCase);
  std::cerr << "measured " << row.name << "\n";
  rows.push_back(row);
}

} // namespace tk::bench

namespace {

void printTable(const std::vector<Row> &rows) {
  const std::vector<std::string> cols = {"tkc", "oneDNN", "OpenBLAS", "gcc -O3", "PyTorch"};
  std::cout << "\n| case | unit |";
  for (const std::string &c : cols)
    std::cout << ' ' << c << " |";
  std::cout << " tkc / best other | tkc / PyTorch | max rel diff |\n|---|---|";
  for (size_t i = 0; i < cols.size() + 3; ++i)
    std::cout << "---:|";
  std::cout << '\n';
  std::vector<double> vsTorch;
  for (const Row &r : rows) {
    std::cout << "| " << r.name << " | " << (r.bandwidth ? "GB/s" : "GFLOP/s") << " |";
    double tkc = 0, best = 0, torch = 0;
    for (const std::string &c : cols) {
      auto it = std::find_if(r.seconds.begin(), r.seconds.end(), [&](auto &p) { return p.first == c; });
      if (it == r.seconds.end()) {
        std::cout << " – |";
        continue;
      }
      double rate = r.work / it->second * 1e-9;
      if (c == "tkc")
        tkc = rate;
      else
        best = std::max(best, rate);
      if (c == "PyTorch")
        torch = rate;
      std::cout << fmt::format(" {:.1f} |", rate);
    }
    auto ratio = [&](double other) { return other > 0 ? fmt::format(" {:.2f} |", tkc / other) : " – |"; };
    if (torch > 0)
      vsTorch.push_back(tkc / torch);
    std::cout << ratio(best) << ratio(torch) << (r.check >= 0 ? fmt::format(" {:.1e} |", r.check) : " – |") << '\n';
  }
  if (!vsTorch.empty()) {
    double logSum = 0;
    for (double v : vsTorch)
      logSum += std::log(v);
    std::cout << fmt::format("\nGeometric mean of tkc / PyTorch over {} ops: {:.2f}\n", vsTorch.size(),
                             std::exp(logSum / vsTorch.size()));
  }
}

} // namespace

int main(int argc, char **argv) {
  bench::execWithLibraryEnvironment(argv);
  Bench b;
  if (!bench::parseOptions(argc, argv, "tk_ops_bench", b.o)) return 2;
  setenv("TK_NUM_THREADS", fmt::format("{}", b.o.threads).c_str(), 1);
  bench::setBaselineThreads(b.o.threads);
  std::string error;
  auto ops = e2e::NativeLibrary::build(b.o.source + "/bench/ops/custom_ops.tk", b.o.compile, &error);
  auto linalg = ops ? e2e::NativeLibrary::build(b.o.source + "/stdlib/std/linalg.tk", b.o.compile, &error) : nullptr;
  b.cloops =
      ops && linalg ? bench::compileCLoops(b.o.source + "/bench/ops/stencils.c", b.o.compile.workDir, &error) : nullptr;
  if (!b.cloops) {
    std::cerr << "tk_ops_bench: " << error << "\n";
    return 2;
  }
  b.ops = ops.get();
  b.linalg = linalg.get();
  measureAll(b);
  std::map<std::string, double> torch;
  if (bench::haveTorch()) {
    torch = bench::torchSeconds(b.o.source + "/bench/ops_torch.py", b.torch, b.o.compile.workDir, b.o.threads, b.o.runs,
                                b.o.maxSeconds, &error);
    if (torch.empty())
      std::cerr << "tk_ops_bench: PyTorch column left out: " << error << "\n";
  } else {
    std::cerr << "tk_ops_bench: python3 (or $TK_PYTHON) cannot import torch: no PyTorch column\n";
  }
  for (Row &r : b.rows)
    if (auto it = torch.find(r.name); it != torch.end())
      r.seconds.push_back({"PyTorch", it->second});
  std::cout << "threads: " << b.o.threads << ", OMP_WAIT_POLICY=" << getenv("OMP_WAIT_POLICY")
            << ", OpenBLAS kernels: " << openblasCoreName() << ", median of up to " << b.o.runs
            << " samples after warm-up\n";
  printTable(b.rows);
  return 0;
}
