// SpecializeScalars and PartitionLoops on the loop IR of small ops: strides
// become constants in copies of the function, window loops split into
// guarded edges and an unguarded middle, and the loops the passes must not
// touch (window steps reduced into a register, contractions) stay whole.
#include "source_module.h"
#include "sched_build.h"
#include "scheduler/Pipeline.h"
#include "scheduler/construct/FillHoles.h"

#include <doctest/doctest.h>
#include <regex>

using namespace tk;
using namespace tk::ir;

namespace {

const char *kPool = R"(op pool(X: f32[N, W], stride: i64) -> Y: f32[N, (W - 3) / stride + 1]
  where stride >= 1, W >= 3
{
  Y[n, x] = max(s < 3) (X[n, x*stride + s - 1] else -inf);
})";

} // namespace

TEST_CASE("specialize scalars: a stride gets copies for 1 and 2, the general code last") {
  std::string text = schedtest::loopIRText(kPool);
  size_t one = text.find("if (stride == 1) {"), two = text.find("if (stride == 2) {");
  REQUIRE(one != std::string::npos);
  REQUIRE(two != std::string::npos);
  CHECK(one < two);
  CHECK(text.find("X[n, s + x - 1]") != std::string::npos);     // stride 1: unit stride in x
  // stride 2 (read through even/odd phase rows, DeinterleaveStridedRows,
  // after one column of padding: s - 1 reaches one column left of the row)
  CHECK(text.find("X_phases[(s + 1) % 2, x + (s + 1) / 2]") != std::string::npos);
  CHECK(text.find("x * stride") != std::string::npos);          // the general copy
}

TEST_CASE("specialize scalars: a stride read only by the copies that pack panels gets no copy") {
  // ConstructConvolution's general path reads X at x * stride only in the
  // copies into its panels, which the tiles then read: copies of the
  // function for stride 2 measured no faster (SpecializeScalars.cpp).
  ir::Module m = unittest::moduleFromSource(R"(op conv(X: f32[N, C, H, W], Wt: f32[F, C, R, S], stride: i64, pad: i64)
  -> O: f32[N, F, (H + 2*pad - R) / stride + 1, (W + 2*pad - S) / stride + 1]
  where stride >= 1, pad >= 0
{
  O[n, f, y, x] = sum(c, r, s) (X[n, c, y*stride + r - pad, x*stride + s - pad] else 0) * Wt[f, c, r, s];
})");
  construct::ConstructOptions co;
  co.hw = schedtest::stdlibTarget("x86_64-avx512");
  PipelineOptions opts;
  opts.target = TargetDesc{TargetFamily::Cpu, 512, 32};
  opts.construct = &co;
  schedtest::DiagFixture fx;
  std::vector<LoweredFunc> fs = lowerModule(m, opts, fx.diags);
  REQUIRE(fs.size() == 1);
  std::string text = printLoweredFunc(fs[0]);
  REQUIRE(text.find("panel_X") != std::string::npos);
  CHECK(text.find("* stride") != std::string::npos);
  CHECK(text.find("stride == 2") == std::string::npos);
  // A pooling window reads X where it sums: its copy for stride 2 stays.
  CHECK(schedtest::loopIRText(kPool).find("if (stride == 2) {") != std::string::npos);
}

TEST_CASE("specialize scalars: an if on the scalar folds in each copy") {
  std::string text = schedtest::loopIRText(R"(op gather(X: f32[N], step: i64) -> Y: f32[N] where step >= 1 {
  Y[i] = X[i * step] else 0;
}
kernel gather_k implements gather on cpu {
  for (i) in spatial(N) on cores {
    if (step == 3) { Y[i] = X[i * 3] else 0; } else { Y[i] = X[i * step] else 0; }
  }
})");
  // Two functions (the op `gather` uses gather_k, which is exported too).
  // In each, the copies for 1 and 2 hold only the else branch (step is not
  // 3); the general code keeps the kernel's own test: 2 tests in all, not 6.
  REQUIRE(text.find("if (step == 1) {") != std::string::npos);
  size_t tests = 0;
  for (size_t at = text.find("if (step == 3)"); at != std::string::npos; at = text.find("if (step == 3)", at + 1)) ++tests;
  CHECK(tests == 2);
}

TEST_CASE("specialize scalars: a scalar scaling only outer loops gets no copy") {
  // `dil` multiplies only the window variable s; x, which indexes the
  // output, reads with stride 1 whatever dil is: no copies.
  std::string text = schedtest::loopIRText(R"(op dilated(X: f32[N, W], dil: i64) -> Y: f32[N, W - 2 * dil]
  where dil >= 1, W >= 2 * dil
{
  Y[n, x] = sum(s < 3) (X[n, x + s * dil] else 0);
})");
  CHECK(text.find("if (dil == 1)") == std::string::npos);
  CHECK(text.find("if (dil == 2)") == std::string::npos);
  // With a stride on x as well: copies for stride 1 and 2, dil 1 in both,
  // none for dil 2.
  text = schedtest::loopIRText(R"(op both(X: f32[N, W], stride: i64, dil: i64) -> Y: f32[N, (W - 2 * dil - 1) / stride + 1]
  where stride >= 1, dil >= 1, W >= 2 * dil + 1
{
  Y[n, x] = sum(s < 3) (X[n, x * stride + s * dil] else 0);
})");
  CHECK(text.find("if (stride == 1 && dil == 1) {") != std::string::npos);
  CHECK(text.find("if (stride == 2 && dil == 1) {") != std::string::npos);
  CHECK(text.find("dil == 2") == std::string::npos);
}

TEST_CASE("partition loops: a loop over outputs splits at the window's edges") {
  std::string text = schedtest::loopIRText(R"(op shift(X: f32[N, W]) -> Y: f32[N, W] {
  Y[n, x] = max(s < 3) ((X[n, x + s - 1] else -inf) * 2.0);
})");
  // The reduction runs outside x (max= into Y) of a computed value, which no
  // register tile takes: the middle x loop reads X without its window
  // guard, the edges keep it.
  CHECK(text.find("for x in 0..min(max(0, -s + 1), W) {\n"
                  "        Y[n, x] = max(Y[n, x], (X[n, s + x - 1] when 0 <= s + x - 1 && s + x - 1 < W else -inf) * 2.0);\n"
                  "      }\n"
                  "      for x in min(max(0, -s + 1), W)..") != std::string::npos);
  CHECK(text.find("Y[n, x] = max(Y[n, x], X[n, s + x - 1] * 2.0);") != std::string::npos);
}

TEST_CASE("partition loops: a window max or sum of one read is left to the register tile") {
  // max(Y, X[..]) and Y + X[..] at unit stride (and stride 2 from an input,
  // which DeinterleaveStridedRows makes unit-stride) keep one x loop with
  // its guards: the backend's register tile masks the edges.
  for (const char *src : {R"(op shift(X: f32[N, W]) -> Y: f32[N, W] {
  Y[n, x] = max(s < 3) (X[n, x + s - 1] else -inf);
})",
                          R"(op shift(X: f32[N, W]) -> Y: f32[N, W / 2] {
  Y[n, x] = sum(s < 3) (X[n, 2*x + s - 1] else 0);
})"}) {
    std::string text = schedtest::loopIRText(src);
    CAPTURE(text);
    CHECK(text.find("for x in 0..") != std::string::npos);
    CHECK(text.find("for x in min(") == std::string::npos);
  }
}

TEST_CASE("partition loops: window steps reduced into a register stay one loop") {
  std::string text = schedtest::loopIRText(R"(op avg(X: f32[N, W]) -> Y: f32[N, W] {
  Y[n, x] = (sum(s < 3) (X[n, x + s - 1] else 0)) / 3.0;
})");
  // s indexes no stored element: no split (three copies of a 3-step loop
  // would cost more than the guard).
  CHECK(text.find("for s in 0..3 {") != std::string::npos);
  CHECK(text.find("for s in min(") == std::string::npos);
}

TEST_CASE("partition loops: a stencil's domain edges split off, and its row conditions version the row loop") {
  std::string text = schedtest::loopIRText(R"(op stencil2d(X: f32[H, W]) -> Y: f32[H, W] {
  Y[i, j] = 0.5 * X[i, j] + 0.125 * ((X[i - 1, j] else 0.0) + (X[i + 1, j] else 0.0)
                                   + (X[i, j - 1] else 0.0) + (X[i, j + 1] else 0.0));
})");
  // The row conditions do not vary along j: the j loop is versioned on them.
  CHECK(text.find("if (0 <= i - 1 && i + 1 < H) {") != std::string::npos);
  // Interior rows, interior columns: no guard at all (a unit-stride product
  // 0.5 * X[i, j] that accumulates nothing is not a register tile's).
  CHECK(text.find("Y[i, j] = 0.5 * X[i, j] + 0.125 * (X[i - 1, j] + X[i + 1, j] + X[i, j - 1] + X[i, j + 1]);") !=
        std::string::npos);
  // The columns at the edges keep theirs.
  CHECK(text.find("for j in 0..min(1, W) {") != std::string::npos);
  CHECK(text.find("for j in max(W - 1, min(1, W))..W {") != std::string::npos);
}

namespace {

// The loop IR of `src` with the CPU constructors on (AVX-512, 32 registers).
std::string constructedLoopIR(const std::string &src) {
  ir::Module m = unittest::moduleFromSource(src);
  schedtest::DiagFixture fx;
  construct::ConstructOptions construct;
  construct.hw = schedtest::stdlibTarget("zen5-2c");
  PipelineOptions opts;
  opts.target = TargetDesc{ir::TargetFamily::Cpu, 512, 32};
  opts.construct = &construct;
  std::string text;
  for (const ir::LoweredFunc &f : lowerModule(m, opts, fx.diags)) text += printLoweredFunc(f);
  REQUIRE_MESSAGE(!text.empty(), fx.out.str());
  return text;
}

} // namespace

TEST_CASE("partition loops and full tiles: a 1x1 convolution's flat pixel tiles stay register tiles") {
  // The flat version of a convolution run with a 1x1 window
  // (ConstructConvolution) reads X[n, c, p / W, p % W]: one unit-stride
  // index p. Its filter-row loop must not be versioned per row (the
  // backend's register tile masks the rows of the last, partial filter
  // block), and the channel blocks (a loop no guard mentions) still get a
  // copy per filter block, the first block's zeroing in each, so only the
  // last one runs the masked tile when F is no multiple of the block.
  std::string text = constructedLoopIR(R"(op conv(X: f32[N, C, H, W], Wt: f32[F, C, R, S]) -> O: f32[N, F, H - R + 1, W - S + 1] {
  O[n, f, y, x] = sum(c, r, s) (X[n, c, y + r, x + s] else 0) * Wt[f, c, r, s];
})");
  CAPTURE(text);
  REQUIRE(std::regex_search(text, std::regex(R"(\(pb \* \d+ \+ xx\) % W\])"))); // the flat version
  // (the zeroing nests may be versioned per row: they are no tile's)
  CHECK(!std::regex_search(text, std::regex(R"(for fr in 0\.\.\d+ \{\n\s*if \([^\n]*\n\s*for xx[^\n]*\n[^\n]*\+ \(?X\[)")));
  CHECK(std::regex_search(text, std::regex(R"(for cb in 0\.\.max\(1, cdiv\(C, \d+\)\) \{\n\s*for fb in 0\.\.cdiv\(F, (\d+)\) \{\n\s*if \([^\n]*fb \* \1 \+ \d+ < F[^\n]*\n\s*if \(cb == 0\))")));
}

TEST_CASE("full tiles: a matmul's k loop is not passed through to version its rows") {
  // The last row tile of a matmul (M no multiple of 6) keeps its row guards
  // on the register tile, which masks them; a copy per row inside the k
  // loop would leave those rows to scalar code.
  std::string text = constructedLoopIR(R"(op mm(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] {
  C[i, j] = sum(k) A[i, k] * B[k, j];
})");
  CAPTURE(text);
  REQUIRE(text.find("for kk") != std::string::npos);
  CHECK(!std::regex_search(text, std::regex(R"(for kk\w* in [^\n]*\{\n\s*for r\w* in 0\.\.\d+ \{\n\s*if \()")));
}
