#include "LoopTuneNests.h"

#include "frontend/Frontend.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace tk::looptune {

std::string randomNestSource(std::mt19937 &rng, int id) {
  auto dim = [&] { return 64 + 16 * std::uniform_int_distribution<int>(0, 12)(rng); };
  char buf[512];
  std::string name = "op_" + std::to_string(id);
  switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
  case 4: {
    int c = 8 * std::uniform_int_distribution<int>(1, 4)(rng), f = 16 * std::uniform_int_distribution<int>(1, 4)(rng);
    int hw = 16 * std::uniform_int_distribution<int>(1, 3)(rng);
    std::snprintf(buf, sizeof buf,
                  "op %s(X: f32[%d, %d, %d], W: f32[%d, %d, 3, 3]) -> Y: f32[%d, %d, %d] {\n"
                  "  Y[f, y, x] = sum(c, r, s) (X[c, y + r, x + s] else 0.0) * W[f, c, r, s];\n}\n",
                  name.c_str(), c, hw + 2, hw + 2, f, c, f, hw, hw);
    break;
  }
  case 5: {
    int r = 4 * dim(), c = 4 * dim();
    std::snprintf(buf, sizeof buf, "op %s(X: f32[%d, %d]) -> Y: f32[%d] { Y[i] = sum(j) X[i, j]; }\n",
                  name.c_str(), r, c, r);
    break;
  }
  default: {
    int m = dim(), k = dim(), n = dim();
    std::snprintf(buf, sizeof buf,
                  "op %s(A: f32[%d, %d], B: f32[%d, %d]) -> C: f32[%d, %d] { C[i, j] = sum(k) A[i, k] * B[k, j]; }\n",
                  name.c_str(), m, k, k, n, m, n);
  }
  }
  return buf;
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
