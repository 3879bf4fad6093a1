// ConstructRowKernel: which ops get a cuda row kernel, the reason for each
// refusal, and the kernel's structure (its values are checked against the
// interpreter by the e2e cuda tests of std/nn.tk and std/reduce.tk).
#include "source_module.h"
#include "scheduler/cuda/ConstructRowKernel.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;

namespace {

std::string refusal(const std::string &src) {
  std::string why;
  CHECK_FALSE(rowKernelApplies(*unittest::firstOpFromSource(src), &why));
  return why;
}

} // namespace

TEST_CASE("row kernel: softmax, layernorm and row reductions apply") {
  for (const char *src : {
           "op a(X: f32[M, N]) -> Y: f32[M] { Y[i] = sum(j) X[i, j]; }",
           "op b(X: f32[M, N]) -> Y: f32[M] { Y[i] = max(j) X[i, j] * 2.0 + 1.0; }",
           "op c(X: f32[M, N]) -> Y: f32[M, N] { m[i] = max(j) X[i, j]; e[i, j] = exp(X[i, j] - m[i]); "
           "t[i] = sum(j) e[i, j]; Y[i, j] = e[i, j] / t[i]; }",
           "op d(X: f32[M, N], g: f32[N]) -> Y: f32[M, N] { s[i] = (sum(j) X[i, j] * X[i, j]) / f32(N); "
           "Y[i, j] = X[i, j] * rsqrt(s[i]) * g[j]; }",
       }) {
    std::string why;
    CHECK_MESSAGE(rowKernelApplies(*unittest::firstOpFromSource(src), &why), src, ": ", why);
  }
}

TEST_CASE("row kernel: each refusal says why") {
  CHECK(refusal("op a(X: f32[M, N]) -> Y: f32[M, N] { Y[i, j] = X[i, j] * 2.0; }") == "no statement reduces a row");
  CHECK(refusal("op a(X: f64[M, N]) -> Y: f64[M] { Y[i] = sum(j) X[i, j]; }") == "'Y' is not f32");
  CHECK(refusal("op a(X: f32[M, N]) -> Y: f32 { Y = sum(i, j) X[i, j]; }") == "'Y' has rank 0");
  CHECK(refusal("op a(X: f32[M, N]) -> Y: f32[M] { Y[i] = sum(j) X[i, j] + max(k) X[i, k]; }") ==
        "'Y' has 2 reductions");
  CHECK(refusal("op a(X: f32[M, N]) -> Y: f32[M] { Y[i] = prod(j) X[i, j]; }") == "'Y' is a product");
  CHECK(refusal("op a(X: f32[M, N], Z: f32[N, M]) -> (Y: f32[M], W: f32[N]) { Y[i] = sum(j) X[i, j]; "
                "W[i] = sum(j) Z[i, j]; }") == "'W' has other rows than the first statement");
  CHECK(refusal("op a(X: f32[M, N], Z: f32[M, K]) -> (Y: f32[M], W: f32[M]) { Y[i] = sum(j) X[i, j]; "
                "W[i] = sum(k) Z[i, k]; }") == "'W' reduces over other columns");
  CHECK(refusal("op a(X: f32[N, N]) -> Y: f32[N, N] { t[i] = sum(j) X[i, j]; Y[i, j] = X[i, j] * t[j]; }") ==
        "'t' is read at another row");
  CHECK(refusal("op a(X: f32[N, N]) -> Y: f32[N, N] { t[i] = sum(j) X[i, j]; e[i, j] = X[i, j] - t[i]; "
                "Y[i, j] = e[i, i] * t[i]; }") == "'e' is read at another column");
  CHECK(refusal("op a(X: f32[M, N]) -> Y: f32[M, N] { t[i] = sum(j) X[i, j]; e[i, j] = X[i, j] - t[i]; "
                "Y[i, j] = e[i, j + 1] else 0.0; }") == "'e' is read with an else value");
}

TEST_CASE("row kernel: blocks of warps per row, barriers after the reductions") {
  OpPtr op = unittest::firstOpFromSource(
      "op sm(X: f32[M, N]) -> Y: f32[M, N] { m[i] = max(j) X[i, j]; e[i, j] = exp(X[i, j] - m[i]); "
      "t[i] = sum(j) e[i, j]; Y[i, j] = e[i, j] / t[i]; }");
  std::string text = printKernel(*constructRowKernel(op, 8));
  CHECK(text.find("for (row) in spatial(M) on blocks {") != std::string::npos);
  CHECK(text.find("shared m_warps: f32[8];") != std::string::npos);
  CHECK(text.find("for (warp, lane) in spatial(8, 32) on threads {") != std::string::npos);
  // The intermediates are a register (m, t) or their value where read (e).
  CHECK(text.find("global") == std::string::npos);
  CHECK(text.find("Y[row, strip * 256 + warp * 32 + lane] = exp(X[row, strip * 256 + warp * 32 + lane] - "
                  "m_row[0]) / t_row[0];") != std::string::npos);
  size_t syncs = 0;
  for (size_t p = text.find("sync;"); p != std::string::npos; p = text.find("sync;", p + 1)) ++syncs;
  CHECK(syncs == 2);
}
