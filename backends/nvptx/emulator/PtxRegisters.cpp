#include "PtxRegisters.h"

#include <bit>

namespace tk::cuemu {

namespace {

using Bits = std::vector<uint64_t>;

int destinations(const Instr &in) {
  switch (in.op) {
  case Op::St: case Op::Red: case Op::Bra: case Op::Ret: case Op::Exit: case Op::Trap: case Op::Bar:
  case Op::BarWarp: case Op::Membar: case Op::Nop: case Op::CpAsync: case Op::CpAsyncCommit: case Op::CpAsyncWait:
    return 0;
  default: return in.pair ? 2 : 1;
  }
}

void set(Bits &b, int32_t r) {
  if (r >= 0) b[static_cast<size_t>(r) / 64] |= uint64_t{1} << (r % 64);
}

} // namespace

uint32_t maxLiveRegisters(const Kernel &k) {
  const size_t n = k.code.size(), words = (k.numSlots + 63) / 64;
  std::vector<Bits> def(n, Bits(words)), use(n, Bits(words)), in(n, Bits(words));
  for (size_t i = 0; i < n; ++i) {
    const Instr &x = k.code[i];
    int nd = destinations(x);
    for (size_t o = 0; o < x.ops.size(); ++o) {
      const Operand &op = x.ops[o];
      Bits &b = static_cast<int>(o) < nd && op.kind != Operand::Addr ? def[i] : use[i];
      if (op.kind == Operand::Reg || op.kind == Operand::Addr) set(b, op.reg);
      if (op.kind == Operand::Vec)
        for (int32_t r : op.regs) set(b, r);
    }
    set(use[i], x.guard);
  }
  auto units = [&](const Bits &b) {
    uint32_t u = 0;
    for (size_t w = 0; w < words; ++w)
      for (uint64_t m = b[w]; m; m &= m - 1) u += k.slotUnits[w * 64 + static_cast<size_t>(std::countr_zero(m))];
    return u;
  };
  // live-in = uses + (live-out - defs); a guarded definition may not happen,
  // so it kills nothing. Iterate to the fixed point, last instruction first.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = n; i-- > 0;) {
      const Instr &x = k.code[i];
      Bits out(words);
      auto merge = [&](size_t s) {
        if (s < n)
          for (size_t w = 0; w < words; ++w) out[w] |= in[s][w];
      };
      bool end = x.op == Op::Ret || x.op == Op::Exit || x.op == Op::Trap;
      if (x.op == Op::Bra) merge(static_cast<size_t>(x.target));
      if ((x.op != Op::Bra && !end) || x.guard >= 0) merge(i + 1);
      for (size_t w = 0; w < words; ++w) {
        uint64_t v = use[i][w] | (out[w] & (x.guard >= 0 ? ~uint64_t{0} : ~def[i][w]));
        if (v != in[i][w]) {
          in[i][w] = v;
          changed = true;
        }
      }
    }
  }
  uint32_t best = 0;
  for (size_t i = 0; i < n; ++i) {
    Bits both = in[i];
    for (size_t w = 0; w < words; ++w) both[w] |= def[i][w];
    best = std::max(best, units(both));
  }
  return best;
}

} // namespace tk::cuemu
