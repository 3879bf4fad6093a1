// FuseRows: row loops of a default schedule run as one loop when no row
// reads another's data, and element-wise intermediates live in the output
// row they become or are recomputed where they are read; otherwise the
// reason names the offending access.
#include "source_module.h"
#include "sched_build.h"
#include "scheduler/DefaultSchedule.h"
#include "scheduler/cpu/FuseRows.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;

namespace {

KernelPtr defaultKernel(const std::string &src) {
  return defaultSchedule(unittest::moduleFromSource(src).ops.at(0), TargetDesc{});
}

} // namespace

TEST_CASE("fuse rows: softmax is one row loop; its exponentials live in the output row") {
  KernelPtr k = defaultKernel(R"(op sm(X: f32[M, N]) -> Y: f32[M, N] {
  m[i] = max(j) X[i, j];
  e[i, j] = exp(X[i, j] - m[i]);
  t[i] = sum(j) e[i, j];
  Y[i, j] = e[i, j] / t[i];
})");
  std::string why;
  CHECK(fuseRowsApplies(*k->body, 3, 6, &why));
  KernelPtr f = fuseRows(k);
  std::string text = printKernel(*f);
  // exp is computed once into Y's row, summed from it and scaled in place.
  CHECK(text.find("global e:") == std::string::npos);
  CHECK(text.find("  for (i) in spatial(M) on cores {\n"
                  "    m[i] = max(j < N: X[i, j]);\n"
                  "    for (j) in repeat(N) {\n"
                  "      Y[i, j] = exp(X[i, j] - m[i]);\n"
                  "    }\n"
                  "    t[i] = sum(j < N: Y[i, j]);\n") != std::string::npos);
  CHECK(text.find("Y[i, j] = Y[i, j] / t[i];") != std::string::npos);
}

TEST_CASE("fuse rows: an expensive intermediate without an output to live in is recomputed") {
  KernelPtr k = defaultKernel(R"(op lse(X: f32[M, N]) -> Y: f32[M] {
  e[i, j] = exp(X[i, j]);
  Y[i] = log(sum(j) e[i, j]);
})");
  std::string text = printKernel(*fuseRows(k));
  CHECK(text.find("Y[i] = log(sum(j < N: exp(X[i, j])));") != std::string::npos);
}

TEST_CASE("fuse rows: a read of another row refuses, naming the read") {
  KernelPtr k = defaultKernel(R"(op shift(X: f32[M, N]) -> Y: f32[M, N] {
  s[i] = sum(j) X[i, j];
  Y[i, j] = X[i, j] - (s[M - 1 - i] else 0);
})");
  std::string why;
  CHECK_FALSE(fuseRowsApplies(*k->body, 1, 2, &why));
  CHECK(why.find("is not at its own row, so one row would depend on another") != std::string::npos);
  CHECK_MESSAGE(why.find("the read (s[M - 1 - i] else 0.0)") != std::string::npos, why);
  CHECK(fuseRows(k) == k);
}

TEST_CASE("fuse rows: loops over different row counts are not fused") {
  KernelPtr k = defaultKernel(R"(op two(X: f32[M, N], Z: f32[K]) -> Y: f32[M, N] {
  t[k] = Z[k] + 1.0;
  Y[i, j] = X[i, j] * (t[0] else 0);
})");
  std::string why;
  CHECK_FALSE(fuseRowsApplies(*k->body, 1, 2, &why));
  CHECK(why == "the loops run over different numbers of rows");
}

TEST_CASE("fuse rows: an intermediate whose inputs change later in the row is kept") {
  KernelPtr k = defaultKernel(R"(op keep(X: f32[M, N]) -> Y: f32[M, N] {
  a[i, j] = X[i, j] + 1.0;
  b[i, j] = a[i, j] * 2.0;
  Y[i, j] = b[i, j] + a[i, j];
})");
  std::string text = printKernel(*fuseRows(k));
  // a and b are both inlined (nothing they read is written after them).
  CHECK(text.find("Y[i, j] = (X[i, j] + 1.0) * 2.0 + (X[i, j] + 1.0);") != std::string::npos);
}

// Issue 19: an intermediate stops being stored only when every reader of
// it, at every row it reads, is in the fused row after its store.

TEST_CASE("fuse rows: an intermediate a later reduction reads at every row stays stored") {
  KernelPtr k = defaultKernel(R"(op m7(X: f32[N]) -> Y: f32[N] {
  a[i] = X[i] + sum(k) X[k];
  t[i] = X[i] * 2.0;
  Y[i] = (sum(k) t[k]) + a[i];
})");
  // Y reads t at other rows, so a and t fuse without it.
  std::string why;
  CHECK(fuseRowsApplies(*k->body, 2, 3, &why));
  CHECK_FALSE(fuseRowsApplies(*k->body, 2, 4, &why));
  std::string text = printKernel(*fuseRows(k));
  CHECK(text.find("global t: f32[N];") != std::string::npos);
  CHECK(text.find("    t[i] = X[i] * 2.0;\n  }\n") != std::string::npos);
  CHECK(text.find("Y[i] = sum(k < N: t[k]) + a[i];") != std::string::npos);
}

TEST_CASE("fuse rows: an intermediate with a consumer outside the fused row is not recomputed") {
  KernelPtr k = defaultKernel(R"(op m5(X: f32[N]) -> (A: f32[N], B: f32[N]) {
  t[i] = X[i] * 2.0;
  A[i] = t[i];
  B[i] = t[i] + (A[N - 1 - i] else 0.0);
})");
  std::string text = printKernel(*fuseRows(k));
  CHECK(text.find("global t: f32[N];") != std::string::npos);
  CHECK(text.find("    t[i] = X[i] * 2.0;\n    A[i] = t[i];\n") != std::string::npos);
  CHECK(text.find("B[i] = t[i] + (A[N - 1 - i] else 0.0);") != std::string::npos);
}

TEST_CASE("fuse rows: an expensive intermediate read elsewhere is not moved into the output row") {
  KernelPtr k = defaultKernel(R"(op f(X: f32[M, N]) -> (Y: f32[M, N], Z: f32[N]) {
  m[i] = max(j) X[i, j];
  e[i, j] = exp(X[i, j] - m[i]);
  Y[i, j] = e[i, j] * 2.0;
  Z[j] = sum(i) e[i, j];
})");
  std::string text = printKernel(*fuseRows(k));
  CHECK(text.find("global e: f32[M, N];") != std::string::npos);
  CHECK(text.find("e[i, j] = exp(X[i, j] - m[i]);") != std::string::npos);
  CHECK(text.find("Y[i, j] = e[i, j] * 2.0;") != std::string::npos);
  CHECK(text.find("Z[j] = sum(i < M: e[i, j]);") != std::string::npos);
}

TEST_CASE("fuse rows: an intermediate assigned twice in the row keeps its buffer") {
  // The second t could be recomputed in its reader, but the first one
  // cannot (what it reads, Y, changes later in the row), so t's buffer
  // must stay allocated; it used to be dropped with the second store.
  KernelPtr k = defaultKernel(R"(op f(X: f32[M, N]) -> Y: f32[M, N] {
  Y[i, j] = X[i, j];
  t[i, j] = Y[i, j] * 2.0;
  Y[i, j] = t[i, j] + 1.0;
  t[i, j] = X[i, j] + 1.0;
  Y[i, j] = Y[i, j] + t[i, j];
})");
  std::string text = printKernel(*fuseRows(k));
  CHECK(text.find("global t: f32[M, N];") != std::string::npos);
  CHECK(text.find("t[i, j] = Y[i, j] * 2.0;") != std::string::npos);
  CHECK(text.find("t[i, j] = X[i, j] + 1.0;") != std::string::npos);
}
