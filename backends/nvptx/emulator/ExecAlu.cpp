// Arithmetic, logic, comparison, conversion and move instructions, lane by
// lane, with the semantics of the PTX ISA manual (8.5), sections 9.7.1–9.7.9.
#include "Exec.h"
#include "RegisterValues.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <limits>

namespace tk::cuemu {

namespace {

bool compare(Cmp c, double a, double b) {
  bool un = std::isnan(a) || std::isnan(b);
  switch (c) {
  case Cmp::Eq: return !un && a == b;
  case Cmp::Ne: return !un && a != b;
  case Cmp::Lt: return !un && a < b;
  case Cmp::Le: return !un && a <= b;
  case Cmp::Gt: return !un && a > b;
  case Cmp::Ge: return !un && a >= b;
  case Cmp::Equ: return un || a == b;
  case Cmp::Neu: return un || a != b;
  case Cmp::Ltu: return un || a < b;
  case Cmp::Leu: return un || a <= b;
  case Cmp::Gtu: return un || a > b;
  case Cmp::Geu: return un || a >= b;
  case Cmp::Num: return !un;
  case Cmp::Nan: return un;
  default: return false;
  }
}

template <typename T> bool compareInt(Cmp c, T a, T b) {
  switch (c) {
  case Cmp::Eq: return a == b;
  case Cmp::Ne: return a != b;
  case Cmp::Lt: case Cmp::Lo: return a < b;
  case Cmp::Le: case Cmp::Ls: return a <= b;
  case Cmp::Gt: case Cmp::Hi: return a > b;
  case Cmp::Ge: case Cmp::Hs: return a >= b;
  default: return false;
  }
}

double floatOp(const Instr &in, double a, double b, double c) {
  switch (in.op) {
  case Op::Add: return a + b;
  case Op::Sub: return a - b;
  case Op::Mul: return a * b;
  case Op::Div: return a / b;
  case Op::Neg: return -a;
  case Op::Abs: return std::fabs(a);
  case Op::Min:
  case Op::Max: {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    if (a == b) return (in.op == Op::Min) == (std::signbit(a) || std::signbit(b)) ? (std::signbit(a) ? a : b)
                                                                                   : (std::signbit(a) ? b : a);
    return (in.op == Op::Min) == (a < b) ? a : b;
  }
  case Op::Rcp: return 1.0 / a;
  case Op::Sqrt: return std::sqrt(a);
  case Op::Rsqrt: return 1.0 / std::sqrt(a);
  case Op::Ex2: return std::exp2(a);
  case Op::Lg2: return std::log2(a);
  case Op::Sin: return std::sin(a);
  case Op::Cos: return std::cos(a);
  case Op::Tanh: return std::tanh(a);
  case Op::Copysign: return std::copysign(b, a);
  case Op::Fma:
  case Op::Mad: return std::fma(a, b, c);
  default: return 0;
  }
}

} // namespace

uint64_t BlockRunner::special(const Warp &w, Special s, int lane) const {
  uint32_t t = w.id * 32 + static_cast<uint32_t>(lane);
  switch (s) {
  case Special::TidX: return t % L.block[0];
  case Special::TidY: return t / L.block[0] % L.block[1];
  case Special::TidZ: return t / (L.block[0] * L.block[1]);
  case Special::NtidX: return L.block[0];
  case Special::NtidY: return L.block[1];
  case Special::NtidZ: return L.block[2];
  case Special::CtaidX: return ctaid[0];
  case Special::CtaidY: return ctaid[1];
  case Special::CtaidZ: return ctaid[2];
  case Special::NctaidX: return L.grid[0];
  case Special::NctaidY: return L.grid[1];
  case Special::NctaidZ: return L.grid[2];
  case Special::LaneId: return static_cast<uint64_t>(lane);
  case Special::WarpId: return w.id;
  case Special::NWarpId: return 64;
  case Special::SmId: return 0;
  case Special::NSmId: return 132;
  case Special::Clock: return counters.warpInstr & 0xffffffffu;
  case Special::Clock64: return counters.warpInstr;
  case Special::LanemaskEq: return 1u << lane;
  case Special::LanemaskLt: return (1u << lane) - 1;
  case Special::LanemaskLe: return (2ull << lane) - 1;
  case Special::LanemaskGt: return ~((2ull << lane) - 1) & 0xffffffffu;
  case Special::LanemaskGe: return ~((1ull << lane) - 1) & 0xffffffffu;
  }
  return 0;
}

void BlockRunner::alu(Warp &w, const Instr &in, uint32_t exec) {
  const int bytes = typeBytes(in.type);
  const uint64_t mask = widthMask(bytes);
  const bool sgn = isSigned(in.type);
  const std::vector<Operand> &o = in.ops;
  auto src = [&](size_t i, int lane) { return i < o.size() ? read(w, o[i], lane) : 0; };
  if (in.op == Op::Mov) {
    for (uint32_t m = exec; m; m &= m - 1) {
      int l = std::countr_zero(m);
      if (o[1].kind == Operand::Vec) { // pack
        int eb = bytes / static_cast<int>(o[1].regs.size());
        uint64_t v = 0;
        for (size_t e = 0; e < o[1].regs.size(); ++e)
          v |= (w.r[static_cast<size_t>(o[1].regs[e]) * 32 + static_cast<size_t>(l)] & widthMask(eb)) << (8 * eb * e);
        write(w, o[0], l, v);
      } else if (o[0].kind == Operand::Vec) { // unpack
        int eb = bytes / static_cast<int>(o[0].regs.size());
        uint64_t v = src(1, l);
        for (size_t e = 0; e < o[0].regs.size(); ++e)
          if (o[0].regs[e] >= 0) w.r[static_cast<size_t>(o[0].regs[e]) * 32 + static_cast<size_t>(l)] = (v >> (8 * eb * e)) & widthMask(eb);
      } else {
        uint64_t v = src(1, l);
        write(w, o[0], l, in.type == Type::Pred ? (v != 0) : v & mask);
      }
    }
    return;
  }
  if (in.op == Op::Setp) {
    for (uint32_t m = exec; m; m &= m - 1) {
      int l = std::countr_zero(m);
      size_t a = in.pair ? 2 : 1;
      uint64_t x = src(a, l), y = src(a + 1, l);
      bool r;
      if (isFloat(in.type)) {
        double fx = element(x, in.type, 0), fy = element(y, in.type, 0);
        if (in.ftz && in.type == Type::F32) fx = flush(static_cast<float>(fx)), fy = flush(static_cast<float>(fy));
        r = compare(in.cmp, fx, fy);
      } else if (sgn) {
        r = compareInt(in.cmp, sext(x, bytes), sext(y, bytes));
      } else {
        r = compareInt(in.cmp, x & mask, y & mask);
      }
      bool q = !r;
      if (in.boolOp != BoolOp::None) {
        bool c = src(a + 2, l) != 0;
        auto comb = [&](bool v) { return in.boolOp == BoolOp::And ? v && c : in.boolOp == BoolOp::Or ? v || c : v != c; };
        r = comb(r);
        q = comb(q);
      }
      write(w, o[0], l, r);
      if (in.pair) write(w, o[1], l, q);
    }
    return;
  }
  if (in.op == Op::Selp) {
    for (uint32_t m = exec; m; m &= m - 1) {
      int l = std::countr_zero(m);
      write(w, o[0], l, (src(3, l) ? src(1, l) : src(2, l)) & mask);
    }
    return;
  }
  if (isFloat(in.type)) {
    RoundScope rs(in.rnd);
    int elems = in.type == Type::F16x2 || in.type == Type::BF16x2 ? 2 : 1;
    for (uint32_t m = exec; m; m &= m - 1) {
      int l = std::countr_zero(m);
      uint64_t a = src(1, l), b = src(2, l), c = src(3, l), out = 0;
      for (int e = 0; e < elems; ++e) {
        double x = element(a, in.type, e), y = element(b, in.type, e), z = element(c, in.type, e);
        double r;
        if (in.type == Type::F32) {
          float fx = static_cast<float>(x), fy = static_cast<float>(y), fz = static_cast<float>(z);
          if (in.ftz) fx = flush(fx), fy = flush(fy), fz = flush(fz);
          float fr;
          switch (in.op) { // single rounding in binary32
          case Op::Add: fr = fx + fy; break;
          case Op::Sub: fr = fx - fy; break;
          case Op::Mul: fr = fx * fy; break;
          case Op::Div: fr = fx / fy; break;
          case Op::Fma: case Op::Mad: fr = std::fma(fx, fy, fz); break;
          case Op::Sqrt: fr = std::sqrt(fx); break;
          case Op::Rcp: fr = 1.0f / fx; break;
          default: fr = static_cast<float>(floatOp(in, fx, fy, fz)); break;
          }
          if (in.ftz) fr = flush(fr);
          if (in.sat) fr = std::isnan(fr) ? 0.0f : std::fmin(std::fmax(fr, 0.0f), 1.0f);
          out |= floatToBits(fr);
          continue;
        }
        r = floatOp(in, x, y, z);
        if (in.sat) r = std::isnan(r) ? 0.0 : std::fmin(std::fmax(r, 0.0), 1.0);
        out |= encode(r, in.type, e);
      }
      write(w, o[0], l, out);
    }
    return;
  }
  const int bits = bytes * 8;
  for (uint32_t m = exec; m; m &= m - 1) {
    int l = std::countr_zero(m);
    uint64_t a = src(1, l), b = src(2, l), c = src(3, l), r = 0;
    int64_t sa = sext(a, bytes), sb = sext(b, bytes);
    uint64_t ua = a & mask, ub = b & mask;
    switch (in.op) {
    case Op::Add:
      r = ua + ub;
      if (in.sat && sgn) r = static_cast<uint64_t>(std::clamp<int64_t>(sa + sb, INT32_MIN, INT32_MAX));
      break;
    case Op::Sub:
      r = ua - ub;
      if (in.sat && sgn) r = static_cast<uint64_t>(std::clamp<int64_t>(sa - sb, INT32_MIN, INT32_MAX));
      break;
    case Op::Mul:
    case Op::Mad: {
      if (in.mode == Mode::Wide) {
        r = sgn ? static_cast<uint64_t>(sa * sb) : ua * ub; // operands are at most 32 bits
        if (in.op == Op::Mad) r += c;
        write(w, o[0], l, r & widthMask(2 * bytes));
        continue;
      }
      if (in.mode == Mode::Hi) {
        __int128 p = sgn ? static_cast<__int128>(sa) * sb : static_cast<__int128>(static_cast<unsigned __int128>(ua) * ub);
        r = static_cast<uint64_t>(static_cast<unsigned __int128>(p) >> bits);
      } else {
        r = ua * ub;
      }
      if (in.op == Op::Mad) r += c;
      break;
    }
    case Op::Div:
      if (ub == 0) r = mask;
      else if (sgn) r = (sb == -1) ? 0 - static_cast<uint64_t>(sa) : static_cast<uint64_t>(sa / sb); // no INT_MIN / -1 trap
      else r = ua / ub;
      break;
    case Op::Rem:
      if (ub == 0) r = ua;
      else if (sgn) r = (sb == -1) ? 0 : static_cast<uint64_t>(sa % sb);
      else r = ua % ub;
      break;
    case Op::Neg: r = 0 - static_cast<uint64_t>(sa); break; // wraps, as on the GPU
    case Op::Abs: r = sa < 0 ? 0 - static_cast<uint64_t>(sa) : static_cast<uint64_t>(sa); break;
    case Op::Min: r = sgn ? static_cast<uint64_t>(std::min(sa, sb)) : std::min(ua, ub); break;
    case Op::Max: r = sgn ? static_cast<uint64_t>(std::max(sa, sb)) : std::max(ua, ub); break;
    case Op::And: r = in.type == Type::Pred ? (a && b) : a & b; break;
    case Op::Or: r = in.type == Type::Pred ? (a || b) : a | b; break;
    case Op::Xor: r = in.type == Type::Pred ? ((a != 0) != (b != 0)) : a ^ b; break;
    case Op::Not: r = in.type == Type::Pred ? !a : ~a; break;
    case Op::Cnot: r = ua == 0; break;
    case Op::Shl: r = (b & 0xffffffffu) >= static_cast<uint64_t>(bits) ? 0 : ua << (b & 0xffffffffu); break;
    case Op::Shr: {
      uint64_t s = b & 0xffffffffu;
      if (sgn) r = static_cast<uint64_t>(sa >> std::min<uint64_t>(s, static_cast<uint64_t>(bits - 1)));
      else r = s >= static_cast<uint64_t>(bits) ? 0 : ua >> s;
      break;
    }
    case Op::Lop3: {
      uint64_t lut = src(4, l);
      for (int i = 0; i < bits; ++i) {
        unsigned idx = static_cast<unsigned>((a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1));
        r |= (lut >> idx & 1) << i;
      }
      break;
    }
    case Op::Bfe: {
      uint64_t pos = b & 0xff, len = c & 0xff;
      if (len == 0 || pos >= static_cast<uint64_t>(bits)) {
        r = sgn && len && (ua >> (bits - 1) & 1) ? mask : 0;
        break;
      }
      uint64_t f = (ua >> pos) & (len >= 64 ? ~0ull : (1ull << len) - 1);
      uint64_t top = std::min<uint64_t>(pos + len, static_cast<uint64_t>(bits)) - 1;
      if (sgn && (ua >> top & 1) && len < 64) f |= ~((1ull << std::min<uint64_t>(len, top - pos + 1)) - 1);
      r = f;
      break;
    }
    case Op::Bfi: { // bfi d, f, b, pos, len: f's low bits into b at pos
      uint64_t base = b, pos = c & 0xff, len = src(4, l) & 0xff;
      if (len == 0 || pos >= static_cast<uint64_t>(bits)) { r = base; break; }
      uint64_t fm = (len >= 64 ? ~0ull : (1ull << len) - 1) << pos;
      r = (base & ~fm) | ((a << pos) & fm);
      break;
    }
    case Op::Popc: r = static_cast<uint64_t>(std::popcount(ua)); break;
    case Op::Clz: r = static_cast<uint64_t>(std::countl_zero(ua) - (64 - bits)); break;
    case Op::Brev: r = 0; for (int i = 0; i < bits; ++i) r |= (ua >> i & 1) << (bits - 1 - i); break;
    case Op::Prmt: {
      uint64_t bytesAB = (ua & 0xffffffffu) | (ub & 0xffffffffu) << 32;
      for (int i = 0; i < 4; ++i) {
        unsigned sel = static_cast<unsigned>(c >> (4 * i) & 0xf);
        uint64_t byte = bytesAB >> (8 * (sel & 7)) & 0xff;
        if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
        r |= byte << (8 * i);
      }
      break;
    }
    default:
      error(w, l, in, kIllegalInstruction, fmt::format("no integer form of this instruction for type {}", bytes * 8));
    }
    write(w, o[0], l, in.type == Type::Pred ? (r & 1) : r & mask);
  }
}

} // namespace tk::cuemu
