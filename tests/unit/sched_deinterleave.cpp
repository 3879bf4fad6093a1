// DeinterleaveStridedRows on the loop IR of pooling-like ops: a row read
// with stride k along an output loop is copied into k phase rows and read
// with unit stride; the results equal the op's definition on odd and even
// widths, with padding, for strides 2 and 3 (the evaluator throws on any
// read outside a buffer, so a copy of a padding row would fail too); loops
// the pass must leave alone keep their reads.
#include "source_module.h"
#include "sched_build.h"
#include "sched_eval.h"
#include "scheduler/Pipeline.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace tk;
using namespace tk::ir;

namespace {

// 2-D max pooling with a kernel x kernel window, as in the stdlib.
const char *kPool2d = R"(op pool(X: f32[H, W], kernel: i64, stride: i64, pad: i64)
  -> Y: f32[(H + 2*pad - kernel) / stride + 1, (W + 2*pad - kernel) / stride + 1]
  where kernel >= 1, stride >= 1, pad >= 0, pad <= kernel / 2
{
  Y[y, x] = max(r < kernel, s < kernel) (X[y*stride + r - pad, x*stride + s - pad] else -inf);
})";

double input(size_t i) { return double((i * 7919) % 101) - 50; }

// Runs the lowered pool on an H x W input and compares every output with
// the definition.
void checkPool(const LoweredFunc &f, int64_t H, int64_t W, int64_t kernel, int64_t stride, int64_t pad) {
  CAPTURE(H);
  CAPTURE(W);
  CAPTURE(kernel);
  CAPTURE(stride);
  CAPTURE(pad);
  schedtest::LoopEval ev;
  ev.run(f, {{"H", H}, {"W", W}, {"kernel", kernel}, {"stride", stride}, {"pad", pad}},
         [](const std::string &, size_t i) { return input(i); });
  REQUIRE(ev.status == 0);
  int64_t OH = (H + 2 * pad - kernel) / stride + 1, OW = (W + 2 * pad - kernel) / stride + 1;
  const auto &Y = ev.tensor(f.op->outputs[0]);
  for (int64_t y = 0; y < OH; ++y)
    for (int64_t x = 0; x < OW; ++x) {
      double want = -INFINITY;
      for (int64_t r = 0; r < kernel; ++r)
        for (int64_t s = 0; s < kernel; ++s) {
          int64_t iy = y * stride + r - pad, ix = x * stride + s - pad;
          if (iy >= 0 && iy < H && ix >= 0 && ix < W) want = std::max(want, input(size_t(iy * W + ix)));
        }
      CHECK(Y[size_t(y * OW + x)] == want);
    }
}

} // namespace

TEST_CASE("deinterleave: a stride-2 window's rows are copied into padded phase rows above the window loops") {
  std::string text = schedtest::loopIRText(kPool2d);
  // In the stride == 2 copy of the interior rows: before the window loops
  // (r, s), so that the backend keeps Y in registers across them, each of
  // the window's rows d is copied into its even and odd elements, phase
  // major, after L = ceil(pad / 2) columns of -inf; the x loops read the
  // phase of s - pad in window row r without a guard (the padding columns
  // hold the `else` value). No copy writes the padding columns, so they are
  // filled once, where the buffer is allocated, not once per row.
  size_t two = text.find("if (stride == 2) {");
  REQUIRE(two != std::string::npos);
  std::string s2 = text.substr(two);
  const std::string L = "max(0, -(-pad / 2))";
  CHECK(s2.find("alloc local X_phases: f32[2, kernel, " + L + " + max(cdiv(W, 2), ") != std::string::npos);
  size_t alloc = s2.find("alloc local X_phases: f32[2, kernel, ");
  size_t fill = s2.find("for j in 0.." + L + " {\n              X_phases[q, d, j] = -inf;");
  CHECK(fill != std::string::npos);
  CHECK(s2.find("        for d in 0..kernel {\n          for q in 0..2 {\n", alloc) < fill);
  CHECK(s2.find("X_phases[q, d, j] = -inf;", fill + 1) < s2.find("if (kernel - pad + y * 2 - 1 < H"));
  CHECK(s2.find("X_phases[0, d, j + " + L + "] = X[d - pad + y * 2, j * 2];\n") != std::string::npos);
  CHECK(s2.find("X_phases[1, d, j + " + L + "] = X[d - pad + y * 2, j * 2 + 1];\n") != std::string::npos);
  CHECK(s2.find("X_phases[q, d, W / 2 + " + L + "] = X[d - pad + y * 2, q + W / 2 * 2];") != std::string::npos);
  CHECK(s2.find("max(Y[y, x], X_phases[(-pad + s) % 2, r, x + (-pad + s) / 2 + " + L + "]);") != std::string::npos);
  size_t copy = s2.find("X_phases[0, d, j + "), window = s2.find("for r in 0..kernel");
  CHECK(fill < copy);
  CHECK(copy < window);
  // The general copy (stride unknown) has no constant stride: untouched.
  size_t general = text.rfind("} else {");
  CHECK(text.find("x * stride", general) != std::string::npos);
}

TEST_CASE("deinterleave: a strided product is copied once per window row, guarded") {
  // A contraction's window loops hold the channel loops too; hoisting its
  // copy above them would hold C x R rows. It stays inside r, before s.
  // PartitionLoops split x, and the edge loops' bounds depend on s, so the
  // reach of their reads is not known before the loop: no padding, the
  // reads keep their guards.
  std::string text = schedtest::loopIRText(R"(op conv(X: f32[H, W], Wt: f32[3, 3]) -> Y: f32[(H - 3) / 2 + 1, (W - 3) / 2 + 1] {
  Y[y, x] = sum(r < 3, s < 3) (X[y*2 + r, x*2 + s] else 0) * Wt[r, s];
})");
  CHECK(text.find("alloc local X_phases: f32[2, cdiv(W, 2)];") != std::string::npos);
  CHECK(text.find("X_phases[0, j] = X[r + y * 2, j * 2];") != std::string::npos);
  size_t r = text.find("for r in 0..3"), copy = text.find("X_phases[0, j] ="), s = text.find("for s in 0..3");
  CHECK(r < copy);
  CHECK(copy < s);
  CHECK(text.find("(X_phases[s % 2, x + s / 2] when s + x * 2 < W else 0.0)") != std::string::npos);
}

TEST_CASE("deinterleave: pooling with phase rows equals the definition") {
  for (const LoweredFunc &f : schedtest::lowerSource(kPool2d))
    for (auto [H, W] : {std::pair<int64_t, int64_t>{5, 7}, {6, 8}, {3, 3}, {7, 13}, {4, 1}})
      for (auto [kernel, pad] : {std::pair<int64_t, int64_t>{3, 1}, {3, 0}, {2, 0}, {1, 0}})
        for (int64_t stride : {1, 2, 3})
          if (kernel <= W + 2 * pad && kernel <= H + 2 * pad) checkPool(f, H, W, kernel, stride, pad);
}

TEST_CASE("deinterleave: a constant stride 3 gets three phases and a tail copy") {
  auto fs = schedtest::lowerSource(R"(op pick(X: f32[N, W]) -> Y: f32[N, W / 3] {
  Y[n, x] = (X[n, 3*x + 1] else 0) + (X[n, 3*x + 2] else 0);
})");
  std::string text = printLoweredFunc(fs[0]);
  CHECK(text.find("alloc local X_phases: f32[3, cdiv(W, 3)];") != std::string::npos);
  CHECK(text.find("X_phases[2, j] = X[n, j * 3 + 2];") != std::string::npos);
  CHECK(text.find("for q in 0..W % 3 {") != std::string::npos);
  // Both reads of a loop share its row copy.
  CHECK(text.find("X_phases[1, x] + X_phases[2, x]") != std::string::npos);
  for (int64_t W : {2, 3, 4, 5, 9, 11}) {
    CAPTURE(W);
    schedtest::LoopEval ev;
    ev.run(fs[0], {{"N", 3}, {"W", W}}, [](const std::string &, size_t i) { return input(i); });
    REQUIRE(ev.status == 0);
    int64_t OW = W / 3;
    const auto &Y = ev.tensor(fs[0].op->outputs[0]);
    for (int64_t n = 0; n < 3; ++n)
      for (int64_t x = 0; x < OW; ++x)
        CHECK(Y[size_t(n * OW + x)] == input(size_t(n * W + 3 * x + 1)) + input(size_t(n * W + 3 * x + 2)));
  }
}

TEST_CASE("deinterleave: unit strides, window steps and tensors the function writes keep their reads") {
  // Stride 1 and a window loop reduced into a register (s stores no element).
  std::string text = schedtest::loopIRText(R"(op avg(X: f32[N, W]) -> Y: f32[N, W] {
  Y[n, x] = (sum(s < 3) (X[n, x + s - 1] else 0)) / 3.0;
})");
  CHECK(text.find("_phases") == std::string::npos);
  // An intermediate the function stores may change between copy and read.
  text = schedtest::loopIRText(R"(op twice(X: f32[N, W]) -> Y: f32[N, W / 2] {
  T[n, w] = X[n, w] * 2.0;
  Y[n, x] = (T[n, 2*x] else 0) + 1.0;
})");
  CHECK(text.find("T_phases") == std::string::npos);
}
