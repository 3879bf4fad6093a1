// Warp-collective instructions (PTX ISA 8.5: shfl.sync 9.7.8.6, vote.sync
// 9.7.8.7, mma.sync m16n8k16 9.7.14.5.8 with the fragment layouts of its
// figures, ldmatrix 9.7.14.5.15). Each needs the lanes it names to execute
// it together; with checks on, anything less is an error.
#include "Exec.h"
#include "Float16.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>

namespace tk::cuemu {

void BlockRunner::requireFullWarp(const Warp &w, const Instr &in, uint32_t exec, const char *what) {
  if (exec != ~0u)
    error(w, std::countr_zero(exec | (1u << 31)), in, kIllegalInstruction,
          fmt::format("{} needs all 32 lanes of the warp to execute it together; lanes {:#010x} did", what, exec));
}

// shfl.sync.mode.b32 d[|p], a, b, c, membermask
void BlockRunner::shfl(Warp &w, const Instr &in, uint32_t exec) {
  if (!exec) return;
  const std::vector<Operand> &o = in.ops;
  size_t a = in.pair ? 2 : 1;
  uint64_t vals[32];
  for (uint32_t m = exec; m; m &= m - 1) vals[std::countr_zero(m)] = read(w, o[a], std::countr_zero(m)) & 0xffffffffu;
  for (uint32_t m = exec; m; m &= m - 1) {
    int l = std::countr_zero(m);
    uint32_t member = static_cast<uint32_t>(read(w, o[a + 3], l));
    // The lanes of the mask that have not exited must execute it (PTX ISA:
    // "all non-exited threads corresponding to membermask").
    if (L.checks && ((exec & ~member) || (member & w.live & ~exec)))
      error(w, l, in, kIllegalInstruction,
            fmt::format("shfl.sync with membermask {:#010x} executed by lanes {:#010x}: every lane of the mask must "
                        "execute it together, and only they", member, exec));
    // Only b's low 5 bits count (bval[4:0] = b[4:0]).
    uint32_t b = static_cast<uint32_t>(read(w, o[a + 1], l)) & 0x1f, c = static_cast<uint32_t>(read(w, o[a + 2], l));
    uint32_t lane = static_cast<uint32_t>(l), seg = (c >> 8) & 0x1f, clamp = c & 0x1f;
    uint32_t maxLane = (lane & seg) | (clamp & ~seg), minLane = lane & seg;
    int64_t j = lane;
    bool ok;
    switch (in.mode) {
    case Mode::Up: j = static_cast<int64_t>(lane) - b; ok = j >= static_cast<int64_t>(maxLane); break;
    case Mode::Down: j = lane + b; ok = j <= static_cast<int64_t>(maxLane); break;
    case Mode::Bfly: j = lane ^ b; ok = j <= static_cast<int64_t>(maxLane); break;
    default: j = minLane | (b & ~seg); ok = j <= static_cast<int64_t>(maxLane); break;
    }
    if (!ok) j = lane;
    j &= 31;
    if (L.checks && !(exec >> j & 1u))
      error(w, l, in, kIllegalInstruction,
            fmt::format("shfl.sync reads lane {}, which does not execute it (its value is undefined)", j));
    write(w, o[0], l, vals[j]);
    if (in.pair) write(w, o[1], l, ok);
  }
}

// vote.sync.{all,any,uni}.pred d, {!}p, membermask / vote.sync.ballot.b32 d, {!}p, membermask
void BlockRunner::vote(Warp &w, const Instr &in, uint32_t exec) {
  if (!exec) return;
  uint32_t ballot = 0;
  for (uint32_t m = exec; m; m &= m - 1)
    if (read(w, in.ops[1], std::countr_zero(m))) ballot |= 1u << std::countr_zero(m);
  for (uint32_t m = exec; m; m &= m - 1) {
    int l = std::countr_zero(m);
    uint32_t member = static_cast<uint32_t>(read(w, in.ops[2], l));
    if (L.checks && (exec & ~member))
      error(w, l, in, kIllegalInstruction, fmt::format("vote.sync with membermask {:#010x} executed by lanes {:#010x}", member, exec));
    uint32_t mine = ballot & member;
    uint64_t r = in.mode == Mode::Ballot ? mine
                 : in.mode == Mode::All  ? (mine == (member & exec))
                 : in.mode == Mode::Any  ? (mine != 0)
                                         : (mine == 0 || mine == (member & exec));
    write(w, in.ops[0], l, r);
  }
}

// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 d, a, b, c.
// Lane l holds (g = l / 4, t = l % 4):
//   a: 4 registers, element i (low half first) at row g + 8*((i/2)%2), column 2t + i%2 + 8*(i/4)
//   b: 2 registers, element i at row (k) 2t + i%2 + 8*(i/2), column g
//   c, d: 4 f32, element i at row g + 8*(i/2), column 2t + i%2
void BlockRunner::mma(Warp &w, const Instr &in, uint32_t exec) {
  requireFullWarp(w, in, exec, "mma.sync.aligned");
  const std::vector<Operand> &o = in.ops;
  double A[16][16], B[16][8], C[16][8];
  auto half = [&](uint64_t reg, int h) {
    uint16_t v = static_cast<uint16_t>(reg >> (16 * h));
    return static_cast<double>(in.type2 == Type::BF16 ? bf16ToFloat(v) : halfToFloat(v));
  };
  auto regOf = [&](const Operand &v, size_t i, int l) {
    return w.r[static_cast<size_t>(v.regs[i]) * 32 + static_cast<size_t>(l)];
  };
  for (int l = 0; l < 32; ++l) {
    int g = l / 4, t = l % 4;
    for (int i = 0; i < 8; ++i) A[g + 8 * ((i / 2) % 2)][2 * t + i % 2 + 8 * (i / 4)] = half(regOf(o[1], static_cast<size_t>(i / 2), l), i % 2);
    for (int i = 0; i < 4; ++i) B[2 * t + i % 2 + 8 * (i / 2)][g] = half(regOf(o[2], static_cast<size_t>(i / 2), l), i % 2);
    for (int i = 0; i < 4; ++i)
      C[g + 8 * (i / 2)][2 * t + i % 2] = bitsToFloat(static_cast<uint32_t>(regOf(o[3], static_cast<size_t>(i), l)));
  }
  for (int l = 0; l < 32; ++l) {
    int g = l / 4, t = l % 4;
    for (int i = 0; i < 4; ++i) {
      int r = g + 8 * (i / 2), c = 2 * t + i % 2;
      double acc = C[r][c];
      for (int kk = 0; kk < 16; ++kk) acc += A[r][kk] * B[kk][c]; // products of halves are exact in f64
      w.r[static_cast<size_t>(o[0].regs[static_cast<size_t>(i)]) * 32 + static_cast<size_t>(l)] = floatToBits(static_cast<float>(acc));
    }
  }
}

// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16 {d...}, [addr]:
// lanes 8m..8m+7 give the row addresses (16 bytes each) of matrix m; lane l
// receives row l/4, columns 2(l%4) and 2(l%4)+1 (with .trans: column l/4,
// rows 2(l%4) and 2(l%4)+1) of each matrix, the first in the low half.
void BlockRunner::ldmatrix(Warp &w, const Instr &in, uint32_t exec) {
  requireFullWarp(w, in, exec, "ldmatrix.sync.aligned");
  const Operand &d = in.ops[0], &a = in.ops[1];
  const uint32_t nmat = in.vec, providers = nmat == 4 ? ~0u : (1u << (8 * nmat)) - 1;
  if (d.regs.size() != nmat) error(w, 0, in, kIllegalInstruction, "ldmatrix destination count differs from .x");
  uint16_t tile[4][8][8];
  uint64_t offs[32];
  for (uint32_t m = providers; m; m &= m - 1) {
    int l = std::countr_zero(m);
    uint64_t addr = (a.reg >= 0 ? w.r[static_cast<size_t>(a.reg) * 32 + static_cast<size_t>(l)] : 0) + a.imm;
    Space sp;
    uint8_t *p = resolve(w, in, l, Space::Shared, addr, 16, false, &sp);
    offs[l] = static_cast<uint64_t>(p - shared.data());
    sharedAccess(w, in, l, static_cast<uint32_t>(offs[l]), 16, false, false);
    std::memcpy(tile[l / 8][l % 8], p, 16);
  }
  countShared(offs, 16, providers);
  for (int l = 0; l < 32; ++l) {
    int row = l / 4, col = 2 * (l % 4);
    for (uint32_t mtx = 0; mtx < nmat; ++mtx) {
      uint16_t lo = in.trans ? tile[mtx][col][row] : tile[mtx][row][col];
      uint16_t hi = in.trans ? tile[mtx][col + 1][row] : tile[mtx][row][col + 1];
      w.r[static_cast<size_t>(d.regs[mtx]) * 32 + static_cast<size_t>(l)] = static_cast<uint64_t>(lo) | static_cast<uint64_t>(hi) << 16;
    }
  }
}

} // namespace tk::cuemu
