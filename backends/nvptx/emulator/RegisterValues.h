// RegisterValues: reading and writing typed values in the executor's
// registers (raw bits, 64 per lane): widths, sign extension, f16/bf16/f32/
// f64 elements, subnormal flushing (.ftz), and directed rounding (.rz/.rm/.rp).
#pragma once

#include "Float16.h"
#include "PtxProgram.h"

#include <cfenv>
#include <cmath>
#include <cstdint>

namespace tk::cuemu {

inline uint64_t widthMask(int bytes) { return bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (bytes * 8)) - 1; }
inline int64_t sext(uint64_t v, int bytes) {
  if (bytes >= 8) return static_cast<int64_t>(v);
  int sh = 64 - bytes * 8;
  return static_cast<int64_t>(v << sh) >> sh;
}

// An f32 result of f64 arithmetic rounded "to odd": rounding it again to
// f16/bf16 (nearest even) gives the correctly rounded result.
inline float toOdd(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d || std::isnan(d) || std::isinf(f)) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  return bitsToFloat(floatToBits(f) | 1u);
}

// Element i of a register holding `t` (f16x2 holds two), as a double.
inline double element(uint64_t v, Type t, int i) {
  switch (t) {
  case Type::F16: case Type::F16x2: return halfToFloat(static_cast<uint16_t>(v >> (16 * i)));
  case Type::BF16: case Type::BF16x2: return bf16ToFloat(static_cast<uint16_t>(v >> (16 * i)));
  case Type::F32: return bitsToFloat(static_cast<uint32_t>(v));
  default: return bitsToDouble(v);
  }
}

inline uint64_t encode(double d, Type t, int i) {
  switch (t) {
  case Type::F16: case Type::F16x2: return static_cast<uint64_t>(floatToHalf(toOdd(d))) << (16 * i);
  case Type::BF16: case Type::BF16x2: return static_cast<uint64_t>(floatToBf16(toOdd(d))) << (16 * i);
  case Type::F32: return floatToBits(static_cast<float>(d));
  default: return doubleToBits(d);
  }
}

inline float flush(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }

// Directed rounding for the instructions that name one (.rz/.rm/.rp).
struct RoundScope {
  int saved = -1;
  explicit RoundScope(Rnd r) {
    int mode = r == Rnd::Rz ? FE_TOWARDZERO : r == Rnd::Rm ? FE_DOWNWARD : r == Rnd::Rp ? FE_UPWARD : -1;
    if (mode >= 0) {
      saved = std::fegetround();
      std::fesetround(mode);
    }
  }
  ~RoundScope() {
    if (saved >= 0) std::fesetround(saved);
  }
};

} // namespace tk::cuemu
