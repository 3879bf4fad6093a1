// cvt: conversions between every integer and float type (PTX ISA 8.5,
// section 9.7.9.21): integer widening, narrowing and saturation, float to
// integer with .rni/.rzi/.rmi/.rpi rounding and saturation (NaN -> 0),
// integer to float, float to float (f16/bf16 by round-to-odd then nearest
// even, so the result is rounded once), and the f16x2/bf16x2 packing.
#include "Exec.h"
#include "RegisterValues.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace tk::cuemu {

void BlockRunner::cvt(Warp &w, const Instr &in, uint32_t exec) {
  const Type dt = in.type, st = in.type2;
  const int db = typeBytes(dt), sb = typeBytes(st);
  RoundScope rs(isFloat(dt) && !isFloat(st) ? Rnd::None : in.rnd);
  for (uint32_t m = exec; m; m &= m - 1) {
    int l = std::countr_zero(m);
    uint64_t a = read(w, in.ops[1], l), out = 0;
    if (dt == Type::F16x2 || dt == Type::BF16x2) { // two f32 -> packed, a in the upper half
      uint64_t b = read(w, in.ops[2], l);
      out = encode(bitsToFloat(static_cast<uint32_t>(a)), dt, 1) | encode(bitsToFloat(static_cast<uint32_t>(b)), dt, 0);
      write(w, in.ops[0], l, out);
      continue;
    }
    if (!isFloat(st) && !isFloat(dt)) {
      int64_t v = isSigned(st) ? sext(a, sb) : static_cast<int64_t>(a & widthMask(sb));
      if (in.sat) {
        int64_t lo = isSigned(dt) ? sext(uint64_t{1} << (db * 8 - 1), db) : 0;
        int64_t hi = isSigned(dt) ? static_cast<int64_t>(widthMask(db) >> 1) : static_cast<int64_t>(widthMask(std::min(db, 7)));
        if (!isSigned(st) && (a & widthMask(sb)) > static_cast<uint64_t>(INT64_MAX)) v = hi;
        v = std::clamp(v, lo, hi);
      }
      write(w, in.ops[0], l, static_cast<uint64_t>(v) & widthMask(db));
      continue;
    }
    if (!isFloat(dt)) { // float -> integer: rounds as told, saturates, NaN -> 0
      double x = element(a, st, 0);
      switch (in.rnd) {
      case Rnd::Rzi: case Rnd::Rz: x = std::trunc(x); break;
      case Rnd::Rmi: case Rnd::Rm: x = std::floor(x); break;
      case Rnd::Rpi: case Rnd::Rp: x = std::ceil(x); break;
      default: x = std::nearbyint(x); break;
      }
      if (std::isnan(x)) x = 0;
      if (isSigned(dt)) {
        double lo = -std::ldexp(1.0, db * 8 - 1), hi = std::ldexp(1.0, db * 8 - 1);
        int64_t v = x <= lo ? static_cast<int64_t>(lo) : x >= hi ? static_cast<int64_t>(hi - 1) : static_cast<int64_t>(x);
        if (x >= hi) v = static_cast<int64_t>(widthMask(db) >> 1);
        out = static_cast<uint64_t>(v) & widthMask(db);
      } else {
        double hi = std::ldexp(1.0, db * 8);
        out = x <= 0 ? 0 : x >= hi ? widthMask(db) : static_cast<uint64_t>(x);
      }
      write(w, in.ops[0], l, out);
      continue;
    }
    double x;
    if (isFloat(st)) {
      x = element(a, st, 0);
      if (in.ftz && st == Type::F32) x = flush(static_cast<float>(x));
    } else {
      x = isSigned(st) ? static_cast<double>(sext(a, sb)) : static_cast<double>(a & widthMask(sb));
      if (dt == Type::F32) { // int -> f32 rounds once, from the integer
        float f = isSigned(st) ? static_cast<float>(sext(a, sb)) : static_cast<float>(a & widthMask(sb));
        write(w, in.ops[0], l, floatToBits(f));
        continue;
      }
    }
    if (isFloat(st) && (in.rnd == Rnd::Rni || in.rnd == Rnd::Rzi || in.rnd == Rnd::Rmi || in.rnd == Rnd::Rpi))
      x = in.rnd == Rnd::Rni ? std::nearbyint(x) : in.rnd == Rnd::Rzi ? std::trunc(x) : in.rnd == Rnd::Rmi ? std::floor(x) : std::ceil(x);
    if (in.sat) x = std::isnan(x) ? 0.0 : std::fmin(std::fmax(x, 0.0), 1.0);
    if (dt == Type::F32) {
      float f = static_cast<float>(x); // f64 -> f32 under the scope's rounding
      if (in.ftz) f = flush(f);
      out = floatToBits(f);
    } else if (dt == Type::F64) {
      out = doubleToBits(x);
    } else if (st == Type::F32 || st == Type::F16 || st == Type::BF16) {
      out = dt == Type::F16 ? floatToHalf(static_cast<float>(x)) : floatToBf16(static_cast<float>(x));
    } else {
      out = encode(x, dt, 0);
    }
    write(w, in.ops[0], l, out);
  }
}

} // namespace tk::cuemu
