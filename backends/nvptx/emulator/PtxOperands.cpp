#include "PtxOperands.h"

#include <fmt/format.h>

namespace tk::cuemu {

namespace {

bool value(const Operand &o) { return o.kind == Operand::Reg || o.kind == Operand::Imm || o.kind == Operand::Spec; }
bool dest(const Operand &o) { return o.kind == Operand::Reg || o.kind == Operand::Sink; }

// Operand count: exactly n, or n..m.
bool count(const Instr &in, size_t n, size_t m, std::string *why) {
  if (in.ops.size() >= n && in.ops.size() <= m) return true;
  *why = n == m ? fmt::format("{} operands, expected {}", in.ops.size(), n)
                : fmt::format("{} operands, expected {} to {}", in.ops.size(), n, m);
  return false;
}

// A vector of n registers; "_" (no register) only where sinks are allowed.
bool vec(const Operand &o, size_t n, const char *what, std::string *why, bool sinks = false) {
  bool ok = o.kind == Operand::Vec && o.regs.size() == n;
  for (size_t i = 0; ok && !sinks && i < o.regs.size(); ++i) ok = o.regs[i] >= 0;
  if (ok) return true;
  *why = fmt::format("the {} must be a vector of {} registers", what, n);
  return false;
}

} // namespace

bool checkOperands(const Instr &in, std::string *why) {
  const std::vector<Operand> &o = in.ops;
  auto values = [&](size_t from) {
    for (size_t i = from; i < o.size(); ++i)
      if (!value(o[i])) {
        *why = fmt::format("operand {} must be a register, an immediate or a special register", i + 1);
        return false;
      }
    return true;
  };
  auto firstDest = [&]() {
    if (dest(o[0]) || o[0].kind == Operand::Vec) return true;
    *why = "the destination must be a register";
    return false;
  };
  switch (in.op) {
  case Op::Nop: case Op::Membar: case Op::CpAsyncCommit: case Op::Ret: case Op::Exit: case Op::Trap:
    return count(in, 0, 0, why);
  case Op::Bra: return count(in, 0, 0, why);
  case Op::Bar: return count(in, 1, 1, why) && values(0); // bar.sync a (a thread count is refused)
  case Op::BarWarp: return count(in, 0, 1, why) && values(0);
  case Op::CpAsyncWait: return count(in, in.mode == Mode::All ? 0 : 1, in.mode == Mode::All ? 0 : 1, why) && values(0);
  case Op::Mov:
    if (!count(in, 2, 2, why) || !firstDest()) return false;
    if (o[0].kind == Operand::Vec && o[1].kind == Operand::Vec) { *why = "mov between two vectors"; return false; }
    if (o[1].kind == Operand::Vec || o[0].kind == Operand::Vec) {
      const Operand &v = o[1].kind == Operand::Vec ? o[1] : o[0];
      if (v.regs.empty() || typeBytes(in.type) % static_cast<int>(v.regs.size()) != 0) {
        *why = "a vector mov must split the type's width evenly";
        return false;
      }
      if (o[1].kind == Operand::Vec) return vec(o[1], o[1].regs.size(), "source", why);
      return value(o[1]) || (*why = "bad source", false);
    }
    return values(1);
  case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Rem: case Op::Min: case Op::Max: case Op::And:
  case Op::Or: case Op::Xor: case Op::Shl: case Op::Shr: case Op::Copysign:
    return count(in, 3, 3, why) && firstDest() && values(1);
  case Op::Mad: case Op::Fma: case Op::Bfe: case Op::Prmt: case Op::Selp:
    return count(in, 4, 4, why) && firstDest() && values(1);
  case Op::Lop3: case Op::Bfi: return count(in, 5, 5, why) && firstDest() && values(1);
  case Op::Neg: case Op::Abs: case Op::Not: case Op::Cnot: case Op::Popc: case Op::Clz: case Op::Brev: case Op::Rcp:
  case Op::Sqrt: case Op::Rsqrt: case Op::Ex2: case Op::Lg2: case Op::Sin: case Op::Cos: case Op::Tanh: case Op::Cvta:
    return count(in, 2, 2, why) && firstDest() && values(1);
  case Op::Cvt: {
    size_t n = in.type == Type::F16x2 || in.type == Type::BF16x2 ? 3 : 2;
    return count(in, n, n, why) && firstDest() && values(1);
  }
  case Op::Setp: {
    size_t n = 3 + (in.pair ? 1 : 0) + (in.boolOp != BoolOp::None ? 1 : 0);
    return count(in, n, n, why) && firstDest() && (!in.pair || dest(o[1]) || (*why = "bad second destination", false)) &&
           values(in.pair ? 2 : 1);
  }
  case Op::Ld: case Op::St: {
    size_t a = in.op == Op::Ld ? 1 : 0, v = 1 - a;
    if (!count(in, 2, 2, why)) return false;
    if (o[a].kind != Operand::Addr) { *why = "the address operand must be [ ... ]"; return false; }
    if (in.vec > 1) return vec(o[v], in.vec, in.op == Op::Ld ? "destination" : "source", why, in.op == Op::Ld);
    if (in.op == Op::Ld) return dest(o[v]) || (*why = "the destination must be a register", false);
    return value(o[v]) || (*why = "the stored value must be a register or an immediate", false);
  }
  case Op::Atom:
    if (!count(in, 3, in.mode == Mode::ACas ? 4 : 3, why) || !firstDest()) return false;
    if (o[1].kind != Operand::Addr) { *why = "the address operand must be [ ... ]"; return false; }
    return values(2);
  case Op::Red:
    if (!count(in, 2, 2, why)) return false;
    if (o[0].kind != Operand::Addr) { *why = "the address operand must be [ ... ]"; return false; }
    return values(1);
  case Op::Shfl: {
    size_t d = in.pair ? 2 : 1;
    return count(in, d + 4, d + 4, why) && firstDest() && values(d);
  }
  case Op::Vote: return count(in, 3, 3, why) && firstDest() && values(1);
  case Op::Mma:
    return count(in, 4, 4, why) && vec(o[0], 4, "d operand", why) && vec(o[1], 4, "a operand", why) &&
           vec(o[2], 2, "b operand", why) && vec(o[3], 4, "c operand", why);
  case Op::Ldmatrix:
    if (!count(in, 2, 2, why) || !vec(o[0], in.vec, "destination", why)) return false;
    return o[1].kind == Operand::Addr || (*why = "the address operand must be [ ... ]", false);
  case Op::CpAsync:
    if (!count(in, 3, 5, why)) return false;
    if (o[0].kind != Operand::Addr || o[1].kind != Operand::Addr) { *why = "cp.async takes [dst], [src]"; return false; }
    return values(2);
  }
  return true;
}

} // namespace tk::cuemu
