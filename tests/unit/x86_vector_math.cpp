// Inline f32 exp, log, tanh and erf (backends/x86/EmitVectorMath): accuracy
// against libm in double precision over every 97th f32 bit pattern of each
// function's interesting range (the documented bounds were measured over
// every f32), the special values, and that loops around them vectorize (no
// libm call left in the loop).
#include <doctest/doctest.h>

#include "x86_support.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

using namespace tk;
using namespace tk::ir;
using namespace tk::test;

namespace {

const float kInf = std::numeric_limits<float>::infinity(), kNaN = std::numeric_limits<float>::quiet_NaN();

// Y[i] = fn(X[i]) for i < N, exported as `name`.
LoweredFunc mathLoop(MathFn fn, const std::string &name) {
  auto X = tensor("X", ScalarType::F32, {sym("N")}, TensorRole::Input);
  auto Y = tensor("Y", ScalarType::F32, {sym("N")}, TensorRole::Output);
  Expr i = loopVar("i");
  auto body = forLoop("i", sym("N"), store(Y, {i}, call(fn, load(X, {i}))));
  return LoweredFunc{name, makeOp(name, {tensorParam(X)}, {Y}, {"N"}), TargetFamily::Cpu, body, {}};
}

using MathKernel = int(const float *, float *, int64_t);

// Distance in units in the last place of `got` from the exact value (the
// ulp of the f32 nearest to it; 2^-149 below the normal range).
double ulps(float got, double exact) {
  float ref = float(exact);
  double ulp = std::nextafter(std::fabs(ref), kInf) - std::fabs(ref);
  return std::fabs(double(got) - exact) / ulp;
}

// The vector targets have FMA, which the bounds assume; run the AVX-512
// code where the host can.
std::string vectorTarget() { return __builtin_cpu_supports("avx512f") ? "x86_64-avx512" : "x86_64-avx2"; }

// The kernel `fn` at inputs: every 97th bit pattern in [lo, hi] (as
// unsigned bits: one sign), in batches; returns the largest error against
// `exact` in ulp, and the input where it occurred.
std::pair<double, float> worstUlps(MathKernel *fn, uint32_t lo, uint32_t hi, const std::function<double(double)> &exact) {
  const size_t batch = size_t(1) << 20;
  std::vector<float> x, y(batch);
  x.reserve(batch);
  double worst = 0;
  float at = 0;
  auto flush = [&] {
    REQUIRE(fn(x.data(), y.data(), int64_t(x.size())) == 0);
    for (size_t i = 0; i < x.size(); ++i) {
      double e = ulps(y[i], exact(double(x[i])));
      if (std::isnan(e)) e = std::numeric_limits<double>::infinity(); // a NaN result
      if (e > worst) worst = e, at = x[i];
    }
    x.clear();
  };
  for (uint64_t b = lo; b <= hi; b += 97) {
    x.push_back(std::bit_cast<float>(uint32_t(b)));
    if (x.size() == batch) flush();
  }
  if (!x.empty()) flush();
  return {worst, at};
}

// `fn` at each of `xs`.
std::vector<float> at(MathKernel *fn, std::vector<float> xs) {
  std::vector<float> y(xs.size(), -1);
  REQUIRE(fn(xs.data(), y.data(), int64_t(xs.size())) == 0);
  return y;
}

// Bit patterns of f32 values.
uint32_t bits(float v) { return std::bit_cast<uint32_t>(v); }

// The checks shared by tanh and erf, odd functions that saturate to +-1:
// within maxUlps of `exact` on [-range, range] (both signs swept), signed
// zeros kept, +-1 at `sat` (where f32 rounds to 1), `negFar`, `far`, 1e30
// and the infinities, NaN kept. Returns f(1e-40f) for the caller's check of
// a subnormal input.
float checkOddSaturating(MathFn f, const char *name, double (*exact)(double), float range, double maxUlps, float sat,
                         float negFar, float far) {
  LoadedKernels k({mathLoop(f, name)}, vectorTarget(), 3);
  auto *fn = k.get<MathKernel>(name);
  auto [posWorst, posAt] = worstUlps(fn, 0, bits(range), exact);
  auto [negWorst, negAt] = worstUlps(fn, bits(-0.0f), bits(-range), exact);
  CHECK_MESSAGE(posWorst < maxUlps, name, " at x = ", posAt);
  CHECK_MESSAGE(negWorst < maxUlps, name, " at x = ", negAt);
  auto s = at(fn, {0.0f, -0.0f, 1e-40f, sat, negFar, far, 1e30f, kInf, -kInf, kNaN});
  CHECK(std::bit_cast<uint32_t>(s[0]) == 0u);
  CHECK(std::bit_cast<uint32_t>(s[1]) == bits(-0.0f));
  CHECK(s[3] == 1.0f);
  CHECK(s[4] == -1.0f);
  CHECK(s[5] == 1.0f);
  CHECK(s[6] == 1.0f);
  CHECK(s[7] == 1.0f);
  CHECK(s[8] == -1.0f);
  CHECK(std::isnan(s[9]));
  return s[2];
}

} // namespace

TEST_CASE("x86: inline f32 exp is within 1.02 ulp and handles inf, 0 and NaN") {
  LoadedKernels k({mathLoop(MathFn::Exp, "vexp")}, vectorTarget(), 3);
  auto *fn = k.get<MathKernel>("vexp");
  auto exact = [](double v) { return std::exp(v); };
  // Positive inputs up to ln(FLT_MAX); negative ones down to ln(FLT_MIN)
  // (below, the result would be subnormal: the expansion gives 0).
  auto [posWorst, posAt] = worstUlps(fn, 0, bits(88.72283f), exact);
  auto [negWorst, negAt] = worstUlps(fn, bits(-0.0f), bits(-87.33654f), exact);
  CHECK_MESSAGE(posWorst < 1.02, "at x = ", posAt);
  CHECK_MESSAGE(negWorst < 1.02, "at x = ", negAt);
  auto s = at(fn, {0.0f, -0.0f, 1e-30f, -1e-30f, 88.72f, 88.73f, 100.0f, -87.34f, -104.0f, kInf, -kInf, kNaN});
  CHECK(s[0] == 1.0f);
  CHECK(s[1] == 1.0f);
  CHECK(s[2] == 1.0f);
  CHECK(s[3] == 1.0f);
  CHECK(ulps(s[4], std::exp(double(88.72f))) < 1.02);
  CHECK(s[5] == kInf); // above ln(FLT_MAX)
  CHECK(s[6] == kInf);
  CHECK(s[7] == 0.0f); // below ln(FLT_MIN): no subnormal results
  CHECK(s[8] == 0.0f);
  CHECK(s[9] == kInf);
  CHECK(s[10] == 0.0f);
  CHECK(std::isnan(s[11]));
}

TEST_CASE("x86: inline f32 log is within 0.93 ulp for positive x, subnormals included") {
  LoadedKernels k({mathLoop(MathFn::Log, "vlog")}, vectorTarget(), 3);
  auto *fn = k.get<MathKernel>("vlog");
  auto [worst, where] = worstUlps(fn, 1, bits(std::numeric_limits<float>::max()), [](double v) { return std::log(v); });
  CHECK_MESSAGE(worst < 0.93, "at x = ", where);
  auto s = at(fn, {0.0f, -0.0f, -1.0f, -1e-40f, -kInf, kInf, kNaN, 1.0f, 1e-45f});
  CHECK(s[0] == -kInf);
  CHECK(s[1] == -kInf);
  CHECK(std::isnan(s[2]));
  CHECK(std::isnan(s[3]));
  CHECK(std::isnan(s[4]));
  CHECK(s[5] == kInf);
  CHECK(std::isnan(s[6]));
  CHECK(s[7] == 0.0f);
  CHECK(ulps(s[8], std::log(double(1e-45f))) < 0.93); // the smallest subnormal
}

TEST_CASE("x86: inline f32 tanh is within 1.06 ulp and saturates to +-1") {
  // Up to |x| = 10 (from 9.01 on tanh rounds to 1).
  float tiny = checkOddSaturating(MathFn::Tanh, "vtanh", [](double v) { return std::tanh(v); }, 10.0f, 1.06, 9.5f,
                                  -20.0f, 50.0f);
  CHECK(tiny == 1e-40f);
}

TEST_CASE("x86: inline f32 erf is within 1.19 ulp and saturates to +-1") {
  // Up to |x| = 4.5 (from 3.92 on erf rounds to 1).
  float tiny = checkOddSaturating(MathFn::Erf, "verf", [](double v) { return std::erf(v); }, 4.5f, 1.19, 3.95f,
                                  -6.0f, 100.0f);
  CHECK(ulps(tiny, std::erf(double(1e-40f))) < 1.19); // subnormal in, subnormal out
}

TEST_CASE("x86: loops of f32 exp, log, tanh and erf vectorize without libm calls") {
  std::vector<LoweredFunc> funcs = {mathLoop(MathFn::Exp, "vexp"), mathLoop(MathFn::Log, "vlog"),
                                    mathLoop(MathFn::Tanh, "vtanh"), mathLoop(MathFn::Erf, "verf")};
  std::string text = emit(funcs, CodegenOutput::Assembly, "x86_64-avx512", 3);
  CHECK(text.find("zmm") != std::string::npos);
  for (const char *libm : {"expf", "logf", "tanhf", "erff"}) CHECK_MESSAGE(text.find(libm) == std::string::npos, libm);
  // The polynomials run as fused multiply-adds (AVX-512 has FMA).
  CHECK(text.find("vfmadd") != std::string::npos);
}
