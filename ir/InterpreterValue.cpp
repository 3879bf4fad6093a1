#include "ir/InterpreterValue.h"

#include "ir/Interpreter.h"

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
// saturate (C leaves them undefined, so any choice is a valid reference).
int64_t truncToInt(double f) {
  if (std::isnan(f)) return 0;
  if (f >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (f <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

int64_t floorDivInt(int64_t a, int64_t b) {
  if (b == 0) throw std::domain_error("integer division by zero");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
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
  return intVal(wrapInt(v.asInt(), t));
}

// Rounds to `t` as a cast or store does, adding the rounding to the bound
// when the value was computed in another type.
Value convert(const Value &v, ScalarType from, ScalarType to) {
  if (!isFloat(to)) return intVal(wrapInt(v.asInt(), to));
  double r = roundToType(v.asDouble(), to);
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
  default: return static_cast<double>(wrapInt(truncToInt(v), t));
  }
}

} // namespace tk::ir
