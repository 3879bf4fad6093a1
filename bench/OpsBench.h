// OpsBench: what tk_ops_bench's driver (OpsBench.cpp) and its cases
// (OpsCases.cpp) share: options, table rows, and the measuring context.
#pragma once
#include "bench/BenchCommand.h"
#include "bench/Measure.h"
#include "bench/OpsExternal.h"
#include "tests/e2e/NativeOp.h"

#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace tk::bench {

// One row: `work` is flops (GFLOP/s) or, for memory-bound ops, the bytes a
// kernel must move (GB/s).
struct Row {
  std::string name;
  double work;
  bool bandwidth;
  std::vector<std::pair<std::string, double>> seconds{}; // column -> seconds per call
  double check = -1; // max rel diff of tkc's result vs the first baseline's (-1: none)
};

struct Bench {
  Options o;
  const e2e::NativeLibrary *ops = nullptr, *linalg = nullptr;
  void *cloops = nullptr;
  std::mt19937 rng{42};
  std::vector<Row> rows;
  std::vector<TorchCase> torch;

  bool wanted(const std::string &name) const { return name.find(o.filter) != std::string::npos; }

  // The exported function `name` of custom_ops.tk (or of `lib`) as type F.
  template <typename F> F fn(const std::string &name, const e2e::NativeLibrary *lib = nullptr) const {
    void *p = (lib ? lib : ops)->symbol(name);
    if (!p) {
      std::cerr << "tk_ops_bench: no exported function " << name << "\n";
      std::exit(2);
    }
    return reinterpret_cast<F>(p);
  }

  Buffer random(size_t n) { return randomBuffer(n, rng); }

  // Runs tkc once and each baseline once, records `check()` (which compares
  // their outputs; it may be empty), then times each in turn and appends
  // the row; `torchCase` (its name filled in here) joins the PyTorch list.
  void measure(Row row, const std::function<int()> &tkc, const std::vector<std::pair<std::string, Run>> &baselines,
               const std::function<double()> &check, TorchCase torchCase);
};

// Adds every case of the suite that `b.o.filter` selects to b.rows (OpsCases.cpp).
void measureAll(Bench &b);

} // namespace tk::bench
