#include "LoopTuneNests.h"

#include "frontend/Frontend.h"

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>

namespace tk::looptune {

std::string randomNestSource(std::mt19937 &rng, int id) {
  auto dim = [&] { return 64 + 16 * std::uniform_int_distribution<int>(0, 12)(rng); };
  switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
  case 4: {
    int c = 8 * std::uniform_int_distribution<int>(1, 4)(rng), f = 16 * std::uniform_int_distribution<int>(1, 4)(rng);
    int hw = 16 * std::uniform_int_distribution<int>(1, 3)(rng);
    return fmt::format("op op_{}(X: f32[{}, {}, {}], W: f32[{}, {}, 3, 3]) -> Y: f32[{}, {}, {}] {{\n"
                       "  Y[f, y, x] = sum(c, r, s) (X[c, y + r, x + s] else 0.0) * W[f, c, r, s];\n}}\n",
                       id, c, hw + 2, hw + 2, f, c, f, hw, hw);
  }
  case 5: {
    int r = 4 * dim(), c = 4 * dim();
    return fmt::format("op op_{}(X: f32[{}, {}]) -> Y: f32[{}] {{ Y[i] = sum(j) X[i, j]; }}\n", id, r, c, r);
  }
  default: {
    int m = dim(), k = dim(), n = dim();
    return fmt::format("op op_{}(A: f32[{}, {}], B: f32[{}, {}]) -> C: f32[{}, {}] {{ C[i, j] = sum(k) A[i, k] * "
                       "B[k, j]; }}\n",
                       id, m, k, k, n, m, n);
  }
  }
}

ir::Module buildNestModule(const std::string &source) {
  SourceManager sm;
  DiagEngine diags(sm);
  auto m = buildModule("nest.tk", FrontendOptions{}, sm, diags, nullptr, &source);
  diags.flush();
  if (!m) {
    std::cerr << "looptune: cannot build generated nest:\n" << source;
    std::exit(1);
  }
  return *m;
}

} // namespace tk::looptune
