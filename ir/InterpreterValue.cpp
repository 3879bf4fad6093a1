#include "ir/InterpreterValue.h"

#include "ir/Interpreter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tk::ir {

namespace interp {

// Rounds to a binary float format with `p` significand bits (implicit bit
// included), smallest normal exponent `emin` and largest finite `maxFinite`,
// to nearest even; subnormals keep a fixed ulp, overflow becomes inf.
double roundToFormat(double v, int p, int emin, double maxFinite) {
  if (!std::isfinite(v) || v == 0) return v;
  int e;
  std::frexp(v, &e); // v = m * 2^e, 0.5 <= |m| < 1, so ulp = 2^(e - p)
  int ulpExp = std::max(e - p, emin - p + 1);
  double r = std::ldexp(std::nearbyint(std::ldexp(v, -ulpExp)), ulpExp);
  if (std::fabs(r) > maxFinite) return std::copysign(INFINITY, v);
  return r;
}

int64_t wrapInt(int64_t v, ScalarType t) {
  switch (t) {
  case ScalarType::I8: return static_cast<int8_t>(static_cast<uint64_t>(v) & 0xff);
  case ScalarType::I32: return static_cast<int32_t>(static_cast<uint64_t>(v) & 0xffffffffu);
  case ScalarType::Bool: return v != 0;
  default: return v;
  }
}

// Float -> integer conversion truncates toward zero; values beyond int64
// saturate (2^63 itself is out of range: the largest double below it is
// 2^63 - 1024).
int64_t truncToInt(double f) {
  if (std::isnan(f)) return 0;
  if (f >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (f <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

static std::pair<int64_t, int64_t> intRange(ScalarType t) {
  switch (t) {
  case ScalarType::I8: return {INT8_MIN, INT8_MAX};
  case ScalarType::I32: return {INT32_MIN, INT32_MAX};
  case ScalarType::Bool: return {0, 1};
  default: return {INT64_MIN, INT64_MAX};
  }
}

int64_t floatToInt(double f, ScalarType t) {
  if (t == ScalarType::Bool) return f != 0; // NaN != 0
  auto [lo, hi] = intRange(t);
  return std::clamp(truncToInt(f), lo, hi);
}

// Unsigned arithmetic is modular; converting back is two's complement (C++20).
int64_t wrapAdd(int64_t a, int64_t b) { return static_cast<int64_t>(uint64_t(a) + uint64_t(b)); }
int64_t wrapSub(int64_t a, int64_t b) { return static_cast<int64_t>(uint64_t(a) - uint64_t(b)); }
int64_t wrapMul(int64_t a, int64_t b) { return static_cast<int64_t>(uint64_t(a) * uint64_t(b)); }

// Division by zero and min / -1 are undefined in the compiled code (sdiv).
static void checkDivision(int64_t a, int64_t b, ScalarType t) {
  if (b == 0) throw std::domain_error("integer division by zero");
  if (b == -1 && (a == intRange(t).first || a == INT64_MIN)) throw std::domain_error("integer division overflows");
}

int64_t floorDivInt(int64_t a, int64_t b, ScalarType t) {
  checkDivision(a, b, t);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t ceilDivInt(int64_t a, int64_t b, ScalarType t) {
  checkDivision(a, b, t);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
  return q;
}

int64_t floorModInt(int64_t a, int64_t b, ScalarType t) {
  checkDivision(a, b, t);
  int64_t r = a % b;
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

Value intVal(int64_t i) { return Value{i, 0, 0, true}; }
Value floatVal(double f, double err) {
  // Non-finite results (inf padding, overflow) are compared exactly instead.
  return Value{0, f, std::isfinite(f) && std::isfinite(err) ? err : 0, false};
}

// Converts `v` to type `t` without rounding (the implicit conversions of
// mixed-type arithmetic; rounding happens at casts and stores).
Value coerce(const Value &v, ScalarType t) {
  if (isFloat(t)) return v.isInt ? floatVal(static_cast<double>(v.i), 0) : v;
  return intVal(v.isInt ? wrapInt(v.i, t) : floatToInt(v.f, t));
}

// An exact integer to a float type, rounded once (sitofp) to f64 or f32;
// f16/bf16 through f32, as the backends convert.
static double intToFloat(int64_t i, ScalarType to) {
  if (to == ScalarType::F64) return static_cast<double>(i);
  double f32 = static_cast<double>(static_cast<float>(i));
  return to == ScalarType::F32 ? f32 : roundToType(f32, to);
}

Value convert(const Value &v, ScalarType from, ScalarType to) {
  if (!isFloat(to)) return coerce(v, to);
  double r = 0;
  if (v.isInt) r = intToFloat(v.i, to);
  else if (to == ScalarType::F16 || to == ScalarType::BF16) r = roundToType(static_cast<float>(v.f), to);
  else r = roundToType(v.f, to);
  double err = v.isInt ? 0 : v.err;
  if (from != to) err += unitRoundoff(to) * std::fabs(r);
  return floatVal(r, err);
}

} // namespace interp

using namespace interp;

double unitRoundoff(ScalarType t) {
  switch (t) {
  case ScalarType::F16: return std::ldexp(1.0, -11);
  case ScalarType::BF16: return std::ldexp(1.0, -8);
  case ScalarType::F32: return std::ldexp(1.0, -24);
  case ScalarType::F64: return std::ldexp(1.0, -53);
  default: return 0;
  }
}

double roundToType(double v, ScalarType t) {
  switch (t) {
  case ScalarType::F64: return v;
  case ScalarType::F32: return static_cast<double>(static_cast<float>(v));
  case ScalarType::F16: return roundToFormat(v, 11, -14, 65504.0);
  case ScalarType::BF16: return roundToFormat(v, 8, -126, 3.3895313892515355e38);
  default: return static_cast<double>(floatToInt(v, t));
  }
}

} // namespace tk::ir
