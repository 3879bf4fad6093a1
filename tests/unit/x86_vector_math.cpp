// Inline f32 exp (backends/x86/EmitVectorMath): accuracy against double
// precision over the whole finite range, the special values, and that a
// loop around it vectorizes (no libm call left in the loop).
#include <doctest/doctest.h>

#include "x86_support.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace tk;
using namespace tk::ir;
using namespace tk::test;

namespace {

// Y[i] = exp(X[i]) for i < N.
LoweredFunc expLoop() {
  auto X = tensor("X", ScalarType::F32, {sym("N")}, TensorRole::Input);
  auto Y = tensor("Y", ScalarType::F32, {sym("N")}, TensorRole::Output);
  Expr i = loopVar("i");
  auto body = forLoop("i", sym("N"), store(Y, {i}, call(MathFn::Exp, load(X, {i}))));
  return LoweredFunc{"vexp", makeOp("vexp", {tensorParam(X)}, {Y}, {"N"}), TargetFamily::Cpu, body, {}};
}

using ExpFn = int(const float *, float *, int64_t);

// Distance in units in the last place of `got` from the exact value.
double ulps(float got, double exact) {
  float ref = float(exact);
  double ulp = std::nextafter(std::fabs(ref), std::numeric_limits<float>::infinity()) - std::fabs(ref);
  return std::fabs(double(got) - exact) / ulp;
}

} // namespace

TEST_CASE("x86: inline f32 exp is within 2 ulp and handles inf, 0 and NaN") {
  LoadedKernels k({expLoop()}, "x86_64-avx512", 3);
  std::vector<float> x;
  for (double v = -87.3; v <= 88.7; v += 0.000913) x.push_back(float(v));
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> special = {0.0f, -0.0f, 1e-30f, -1e-30f, 88.72f, 88.73f, 100.0f, -87.34f, -104.0f, inf, -inf, nan};
  x.insert(x.end(), special.begin(), special.end());
  std::vector<float> y(x.size(), -1);
  REQUIRE(k.get<ExpFn>("vexp")(x.data(), y.data(), int64_t(x.size())) == 0);
  double worst = 0;
  size_t n = x.size() - special.size();
  for (size_t i = 0; i < n; ++i) worst = std::max(worst, ulps(y[i], std::exp(double(x[i]))));
  CHECK(worst < 2.0);
  const float *s = y.data() + n;
  CHECK(s[0] == 1.0f);
  CHECK(s[1] == 1.0f);
  CHECK(s[2] == 1.0f);
  CHECK(s[3] == 1.0f);
  CHECK(ulps(s[4], std::exp(double(88.72f))) < 2.0);
  CHECK(s[5] == inf); // above ln(FLT_MAX)
  CHECK(s[6] == inf);
  CHECK(s[7] == 0.0f); // below ln(FLT_MIN): no subnormal results
  CHECK(s[8] == 0.0f);
  CHECK(s[9] == inf);
  CHECK(s[10] == 0.0f);
  CHECK(std::isnan(s[11]));
}

TEST_CASE("x86: a loop of f32 exp vectorizes without libm calls") {
  std::string text = emit({expLoop()}, CodegenOutput::Assembly, "x86_64-avx512", 3);
  CHECK(text.find("zmm") != std::string::npos);
  CHECK(text.find("expf") == std::string::npos);
  // The polynomial runs as fused multiply-adds (AVX-512 has FMA).
  CHECK(text.find("vfmadd") != std::string::npos);
}
