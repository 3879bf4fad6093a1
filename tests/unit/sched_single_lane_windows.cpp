// VersionSingleLaneWindows: a window sum whose output rows may be one
// element wide gets a version running the window along memory; both
// versions compute the op, and nests that are no windows keep their form.
#include "sched_build.h"
#include "sched_eval.h"
#include "scheduler/cpu/VersionSingleLaneWindows.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

namespace {

double value(const std::string &, size_t i) { return double((i * 7) % 11) - 5; }

} // namespace

TEST_CASE("single-lane windows: a window sum is versioned on a one-element row, both versions exact") {
  LoweredFunc f = lowerSource("op wsum(X: f32[H, W], k: i64) -> Y: f32[H - k + 1, W - k + 1] where k >= 1, k <= W, k <= H\n"
                              "{ Y[y, x] = sum(r < k, s < k) (X[y + r, x + s] else 0); }\n")[0];
  std::string text = printLoweredFunc(f);
  CHECK_MESSAGE(text.find("if (W - k + 1 == 1) {") != std::string::npos, text);
  // The one-element version: the window loops inside the row loop, s innermost.
  CHECK(text.find("for x in 0..W - k + 1 {\n") != std::string::npos);
  for (auto [H, W, k] : std::vector<std::array<int64_t, 3>>{{5, 3, 3}, {4, 6, 2}, {3, 1, 1}, {7, 7, 7}}) {
    CAPTURE(H);
    CAPTURE(W);
    CAPTURE(k);
    LoopEval ev;
    ev.run(f, {{"H", H}, {"W", W}, {"k", k}}, value);
    REQUIRE(ev.status == 0);
    const auto &Y = ev.tensor(f.op->outputs[0]);
    int64_t OW = W - k + 1;
    for (int64_t y = 0; y + k <= H; ++y)
      for (int64_t x = 0; x < OW; ++x) {
        double want = 0;
        for (int64_t r = 0; r < k; ++r)
          for (int64_t s = 0; s < k; ++s) want += value("X", size_t((y + r) * W + x + s));
        CHECK(Y[size_t(y * OW + x)] == want);
      }
  }
}

TEST_CASE("single-lane windows: broadcasts, products and constant rows are left alone") {
  for (const char *src : {"op center(X: f32[M, N]) -> Y: f32[M, N] { Y[i, j] = X[i, j] - max(k) X[i, k]; }\n",
                          "op mm(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] { C[i, j] = sum(k) A[i, k] * B[k, j]; }\n",
                          "op w4(X: f32[H, 8]) -> Y: f32[H, 4] { Y[y, x] = sum(s < 5) (X[y, x + s] else 0); }\n"}) {
    CAPTURE(src);
    LoweredFunc f = lowerSource(src)[0];
    CHECK(printLoweredFunc(f).find("== 1) {") == std::string::npos); // the pipeline versioned nothing
    CHECK(printLoweredFunc(versionSingleLaneWindows(f)) == printLoweredFunc(f));
  }
}
