// Float16: IEEE binary16 and bfloat16 <-> binary32 bit conversions, rounding
// to nearest even, as PTX's cvt.rn defines them.
#pragma once

#include <cstdint>
#include <cstring>

namespace tk::cuemu {

inline float bitsToFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline uint32_t floatToBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline double bitsToDouble(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
inline uint64_t doubleToBits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0x1f) return bitsToFloat(sign | 0x7f800000 | (man << 13)); // inf / nan
  if (exp == 0) {
    if (man == 0) return bitsToFloat(sign);
    // Subnormal: value = man * 2^-24, exact in binary32.
    float v = static_cast<float>(man) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return bitsToFloat(sign | ((exp + 112) << 23) | (man << 13));
}

inline uint16_t floatToHalf(float f) {
  uint32_t x = floatToBits(f), sign = (x >> 16) & 0x8000;
  uint32_t ax = x & 0x7fffffff;
  if (ax > 0x7f800000) return static_cast<uint16_t>(sign | 0x7e00 | ((ax >> 13) & 0x3ff)); // nan, quiet
  if (ax >= 0x477ff000) return static_cast<uint16_t>(sign | 0x7c00); // rounds to >= 65520: inf
  if (ax < 0x38800000) { // below the smallest normal half: subnormal or zero
    // Round ax's value to a multiple of 2^-24 (the subnormal step), ties to even.
    float v = bitsToFloat(ax) * 16777216.0f; // exact: scales by 2^24
    uint32_t m = static_cast<uint32_t>(v);
    float frac = v - static_cast<float>(m);
    if (frac > 0.5f || (frac == 0.5f && (m & 1))) ++m;
    return static_cast<uint16_t>(sign | m); // m == 0x400 carries into the smallest normal
  }
  uint32_t exp = (ax >> 23) - 112, man = ax & 0x7fffff;
  uint32_t h = (exp << 10) | (man >> 13), rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h; // may carry into the exponent: still right
  return static_cast<uint16_t>(sign | h);
}

inline float bf16ToFloat(uint16_t b) { return bitsToFloat(static_cast<uint32_t>(b) << 16); }

inline uint16_t floatToBf16(float f) {
  uint32_t x = floatToBits(f);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x40); // quiet nan
  uint32_t rest = x & 0xffff, h = x >> 16;
  if (rest > 0x8000 || (rest == 0x8000 && (h & 1))) ++h;
  return static_cast<uint16_t>(h);
}

} // namespace tk::cuemu
