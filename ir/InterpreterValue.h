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
// Integer -> integer: wraps to the width of integer type `t` (two's
// complement, like the compiled truncation); bool: v != 0.
int64_t wrapInt(int64_t v, ScalarType t);
// Float -> integer, truncating toward zero and saturating at the int64
// range; NaN gives 0. (Index arithmetic; casts use floatToInt.)
int64_t truncToInt(double f);
// Float -> integer type `t` as a cast does (docs/abi.md, the backends'
// fptosi.sat): truncates toward zero, saturates at t's range, NaN gives 0;
// to bool: f != 0, so NaN is true (as in C).
int64_t floatToInt(double f, ScalarType t);
// Integer arithmetic that wraps at 64 bits (the compiled add/sub/mul/neg
// wrap; int64_t overflow in C++ would be undefined).
int64_t wrapAdd(int64_t a, int64_t b);
int64_t wrapSub(int64_t a, int64_t b);
int64_t wrapMul(int64_t a, int64_t b);
// Floor division, and ceiling division, of integers of type `t`; both throw
// std::domain_error where the compiled code is undefined: division by zero
// and the quotient of t's minimum by -1 (which overflows t).
int64_t floorDivInt(int64_t a, int64_t b, ScalarType t = ScalarType::I64);
int64_t ceilDivInt(int64_t a, int64_t b, ScalarType t = ScalarType::I64);
// The floor modulo a - floorDiv(a, b) * b (the sign of b), with the same
// domain as floorDivInt.
int64_t floorModInt(int64_t a, int64_t b, ScalarType t = ScalarType::I64);

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
// mixed-type arithmetic; rounding happens at casts and stores). To an
// integer type it converts like a cast.
Value coerce(const Value &v, ScalarType t);
// Converts to `t` as a cast or store does (docs/abi.md, "Conversions"),
// adding the rounding to the bound when the value was computed in another
// type: integers wrap to a narrower integer, floats truncate and saturate
// to an integer, bool is `!= 0`; to f16/bf16 a value is rounded to f32
// first (they are computed in f32), then to nearest even.
Value convert(const Value &v, ScalarType from, ScalarType to);

} // namespace tk::ir::interp
