// Scalar values of the reference interpreter (ir/Interpreter): integers
// exactly, floating-point values as doubles with a running error bound, and
// the rounding each dtype applies at casts and stores. Split out so the
// evaluator reads as tree walking only.
#pragma once
#include "ir/Type.h"

#include <cstdint>

namespace tk::ir::interp {

// Rounds to a binary float format with `p` significand bits (implicit bit
// included), smallest normal exponent `emin` and largest finite `maxFinite`.
double roundToFormat(double v, int p, int emin, double maxFinite);
// Wraps to the width of integer type `t` (bool: 0/1).
int64_t wrapInt(int64_t v, ScalarType t);
// Float -> integer, truncating toward zero and saturating at the int64 range.
int64_t truncToInt(double f);
// Floor division; throws std::domain_error on division by zero.
int64_t floorDivInt(int64_t a, int64_t b);

// An evaluated scalar: integers (and bools) exactly in `i`, floats in `f`
// with `err`, the running error bound of the computation that produced it.
struct Value {
  int64_t i = 0;
  double f = 0;
  double err = 0;
  bool isInt = true;
  double asDouble() const { return isInt ? static_cast<double>(i) : f; }
  int64_t asInt() const { return isInt ? i : truncToInt(f); }
};

Value intVal(int64_t i);
Value floatVal(double f, double err);
// Converts `v` to type `t` without rounding (the implicit conversions of
// mixed-type arithmetic; rounding happens at casts and stores).
Value coerce(const Value &v, ScalarType t);
// Rounds to `t` as a cast or store does, adding the rounding to the bound
// when the value was computed in another type.
Value convert(const Value &v, ScalarType from, ScalarType to);

} // namespace tk::ir::interp
