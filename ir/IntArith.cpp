#include "ir/IntArith.h"

#include <limits>

namespace tk::ir {

namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

FoldResult checked(int64_t v, ScalarType t) {
  if (!fitsIntType(v, t)) return {0, FoldError::Overflow};
  return {v, FoldError::None};
}
FoldResult overflow() { return {0, FoldError::Overflow}; }

// floor(a / b) for b != 0 and (a, b) != (INT64_MIN, -1).
int64_t floorDivRaw(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

} // namespace

bool fitsIntType(int64_t v, ScalarType t) {
  switch (t) {
  case ScalarType::I8: return v >= INT8_MIN && v <= INT8_MAX;
  case ScalarType::I32: return v >= INT32_MIN && v <= INT32_MAX;
  case ScalarType::Bool: return v == 0 || v == 1;
  default: return true;
  }
}

int64_t wrapToIntType(int64_t v, ScalarType t) {
  switch (t) {
  case ScalarType::I8: return static_cast<int8_t>(static_cast<uint64_t>(v) & 0xffu);
  case ScalarType::I32: return static_cast<int32_t>(static_cast<uint64_t>(v) & 0xffffffffu);
  case ScalarType::Bool: return v != 0;
  default: return v;
  }
}

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

FoldResult foldIntBinary(BinOp op, int64_t a, int64_t b, ScalarType t) {
  int64_t r = 0;
  switch (op) {
  case BinOp::Add:
    if (__builtin_add_overflow(a, b, &r)) return overflow();
    return checked(r, t);
  case BinOp::Sub:
    if (__builtin_sub_overflow(a, b, &r)) return overflow();
    return checked(r, t);
  case BinOp::Mul:
    if (__builtin_mul_overflow(a, b, &r)) return overflow();
    return checked(r, t);
  case BinOp::Div:
    if (b == 0) return {0, FoldError::DivisionByZero};
    if (a == kMin && b == -1) return overflow();
    return checked(floorDivRaw(a, b), t);
  case BinOp::Mod:
    if (b == 0) return {0, FoldError::DivisionByZero};
    if (b == -1) return {0, FoldError::None}; // INT64_MIN % -1 traps on x86; the floor modulo is 0
    // From the truncating remainder: a - floor(a / b) * b can overflow in
    // the product (INT64_MIN and 3).
    r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return checked(r, t);
  case BinOp::CDiv:
    // The truncating quotient, rounded up when inexact and positive: -a
    // (ceil(a / b) = -floor(-a / b)) would overflow for INT64_MIN.
    if (b == 0) return {0, FoldError::DivisionByZero};
    if (a == kMin && b == -1) return overflow();
    r = a / b;
    if ((a % b != 0) && ((a < 0) == (b < 0))) ++r;
    return checked(r, t);
  case BinOp::Min: return checked(a < b ? a : b, t);
  case BinOp::Max: return checked(a > b ? a : b, t);
  default: return overflow();
  }
}

FoldResult foldIntNeg(int64_t a, ScalarType t) {
  if (a == kMin) return overflow();
  return checked(-a, t);
}

FoldResult foldIntAbs(int64_t a, ScalarType t) {
  if (a == kMin) return overflow();
  return checked(a < 0 ? -a : a, t);
}

std::string foldErrorMessage(FoldError err, const std::string &expr, ScalarType t) {
  if (err == FoldError::DivisionByZero) return "division by zero in constant expression '" + expr + "'";
  return "integer overflow in constant expression: '" + expr + "' does not fit in " +
         std::string(scalarTypeName(t));
}

} // namespace tk::ir
