// Loads, stores, atomics, address conversion and cp.async (PTX ISA 8.5,
// sections 9.7.9 and 9.7.13): bounds and alignment checked on every access,
// shared accesses checked for races between barriers, and the coalescing
// and bank-conflict counters.
#include "Exec.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace tk::cuemu {

namespace {

const char *spaceName(Space s) {
  switch (s) {
  case Space::Global: return "global";
  case Space::Shared: return "shared";
  case Space::Local: return "local";
  case Space::Param: return "param";
  case Space::Const: return "const";
  default: return "generic";
  }
}

uint64_t windowOf(Space s) {
  return s == Space::Shared ? kSharedWindow : s == Space::Local ? kLocalWindow : s == Space::Param ? kParamWindow : 0;
}

template <typename T> T atomicApply(Mode mode, Type t, T old, T b, T c) {
  if (t == Type::F32 || t == Type::F64) {
    using F = std::conditional_t<sizeof(T) == 4, float, double>;
    F x, y;
    std::memcpy(&x, &old, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    F r = mode == Mode::AAdd ? x + y : mode == Mode::AMin ? std::min(x, y) : mode == Mode::AMax ? std::max(x, y) : y;
    T out;
    std::memcpy(&out, &r, sizeof out);
    return out;
  }
  using S = std::make_signed_t<T>;
  bool sgn = isSigned(t);
  switch (mode) {
  case Mode::AAdd: return old + b;
  case Mode::AMin: return sgn ? static_cast<T>(std::min<S>(static_cast<S>(old), static_cast<S>(b))) : std::min(old, b);
  case Mode::AMax: return sgn ? static_cast<T>(std::max<S>(static_cast<S>(old), static_cast<S>(b))) : std::max(old, b);
  case Mode::AExch: return b;
  case Mode::ACas: return old == b ? c : old;
  case Mode::AAnd: return old & b;
  case Mode::AOr: return old | b;
  case Mode::AXor: return old ^ b;
  case Mode::AInc: return old >= b ? 0 : old + 1;
  case Mode::ADec: return (old == 0 || old > b) ? b : old - 1;
  default: return old;
  }
}

template <typename T> T atomicRmw(void *p, Mode mode, Type t, T b, T c) {
  T *q = static_cast<T *>(p);
  T old = __atomic_load_n(q, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(q, &old, atomicApply<T>(mode, t, old, b, c), true, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED)) {
  }
  return old;
}

} // namespace

uint8_t *BlockRunner::resolve(const Warp &w, const Instr &in, int lane, Space space, uint64_t addr, uint32_t bytes,
                              bool write, Space *actual, uint32_t align) {
  if (space == Space::Generic) {
    uint64_t win = addr & kWindowMask;
    space = win == kSharedWindow ? Space::Shared : win == kLocalWindow ? Space::Local : win == kParamWindow ? Space::Param : Space::Global;
    addr -= windowOf(space);
  }
  *actual = space;
  if (!align) align = bytes;
  if (align > 1 && addr % align != 0)
    error(w, lane, in, kMisaligned,
          fmt::format("misaligned {}-byte {} {} at {:#x} (needs {}-byte alignment)", bytes, spaceName(space),
                      write ? "store" : "load", addr, align));
  auto oob = [&](uint64_t limit) {
    error(w, lane, in, kIllegalAddress,
          fmt::format("out-of-bounds {} {} of {} bytes at offset {} (the {} space holds {} bytes)", spaceName(space),
                      write ? "store" : "load", bytes, static_cast<int64_t>(addr), spaceName(space), limit));
  };
  switch (space) {
  case Space::Shared:
    if (addr >= sharedBytes || bytes > sharedBytes - addr) oob(sharedBytes);
    return shared.data() + addr;
  case Space::Local: {
    uint32_t t = w.id * 32 + static_cast<uint32_t>(lane);
    if (addr >= k.localBytes || bytes > k.localBytes - addr) oob(k.localBytes);
    return local.data() + static_cast<size_t>(t) * k.localBytes + addr;
  }
  case Space::Param:
    if (write) error(w, lane, in, kIllegalAddress, "store to the kernel's parameters");
    if (addr >= L.params.size() || bytes > L.params.size() - addr) oob(L.params.size());
    return const_cast<uint8_t *>(L.params.data()) + addr;
  default:
    if (!findRange(L.ranges, addr, bytes))
      error(w, lane, in, kIllegalAddress,
            fmt::format("out-of-bounds global {} of {} bytes: {}", write ? "store" : "load", bytes,
                        describeAddress(L.ranges, addr)));
    return reinterpret_cast<uint8_t *>(addr);
  }
}

void BlockRunner::sharedAccess(const Warp &w, const Instr &in, int lane, uint32_t off, uint32_t bytes, bool write,
                               bool atomic) {
  if (!L.checks) return;
  uint16_t tid = static_cast<uint16_t>(w.id * 32 + static_cast<uint32_t>(lane)), warp = static_cast<uint16_t>(w.id);
  for (uint32_t b = off; b < off + bytes; ++b) {
    Shadow &s = shadow[b];
    if (s.pending)
      error(w, lane, in, kLaunchFailed,
            fmt::format("{} shared byte {} while a cp.async of thread {} is still copying into it (no "
                        "cp.async.wait_group retired its group, or no bar.sync after the wait)",
                        write ? "writes" : "reads", b, s.pending - 1));
    auto race = [&](const char *kind, const std::string &other, const char *did) {
      error(w, lane, in, kLaunchFailed,
            fmt::format("shared-memory race ({}) on byte offset {}: thread {} (warp {}) {} it, and {} {} it since "
                        "the last bar.sync; a bar.sync is missing between them",
                        kind, b, tid, warp, atomic ? "updates (atomically)" : write ? "writes" : "reads", other, did));
    };
    // Atomics are ordered among themselves, not with plain accesses.
    bool otherWriter = s.wEpoch == epoch && s.wThread / 32 != warp;
    if (otherWriter && !(atomic && s.wAtomic))
      race(write ? "write after write" : "read after write", fmt::format("thread {} of warp {}", s.wThread, s.wThread / 32),
           s.wAtomic ? "updated (atomically)" : "wrote");
    if (write) {
      if (s.rEpoch == epoch && (s.rMulti || s.rWarp != warp))
        race("write after read", s.rWarp != warp ? fmt::format("warp {}", s.rWarp) : std::string("another warp"), "read");
      s.wEpoch = epoch;
      s.wThread = tid;
      s.wAtomic = atomic;
    } else if (s.rEpoch != epoch) {
      s.rEpoch = epoch;
      s.rWarp = warp;
      s.rMulti = 0;
    } else if (s.rWarp != warp) {
      s.rMulti = 1;
    }
  }
}

void BlockRunner::countGlobal(const uint64_t *addr, const uint32_t *bytes, uint32_t exec, bool store) {
  uint64_t sectors[128];
  int n = 0;
  uint64_t total = 0;
  for (uint32_t m = exec; m; m &= m - 1) {
    int l = std::countr_zero(m);
    total += bytes[l];
    for (uint64_t s = addr[l] >> 5; s <= (addr[l] + bytes[l] - 1) >> 5 && n < 128; ++s) sectors[n++] = s;
  }
  std::sort(sectors, sectors + n);
  uint64_t distinct = static_cast<uint64_t>(std::unique(sectors, sectors + n) - sectors);
  (store ? counters.gstReq : counters.gldReq) += 1;
  (store ? counters.gstSectors : counters.gldSectors) += distinct;
  (store ? counters.gstBytes : counters.gldBytes) += total;
}

// Banks: 32 of 4 bytes. A request is served in phases (all 32 lanes for
// accesses up to 4 bytes, half warps for 8, quarter warps for 16); a phase
// takes as many wavefronts as the most distinct words any bank must supply.
void BlockRunner::countShared(const uint64_t *addr, uint32_t bytes, uint32_t exec) {
  uint32_t lanesPerPhase = bytes <= 4 ? 32 : bytes == 8 ? 16 : 8;
  uint64_t wave = 0, ideal = 0;
  for (uint32_t p = 0; p < 32; p += lanesPerPhase) {
    uint32_t words[32][32];
    uint32_t count[32] = {};
    uint32_t worst = 0;
    bool any = false;
    for (uint32_t l = p; l < p + lanesPerPhase; ++l) {
      if (!(exec >> l & 1u)) continue;
      any = true;
      for (uint64_t wd = addr[l] / 4; wd <= (addr[l] + std::max(bytes, 1u) - 1) / 4; ++wd) {
        uint32_t bank = static_cast<uint32_t>(wd % 32), c = count[bank];
        bool seen = false;
        for (uint32_t i = 0; i < c && !seen; ++i) seen = words[bank][i] == wd;
        if (!seen && c < 32) words[bank][count[bank]++] = static_cast<uint32_t>(wd);
        worst = std::max(worst, count[bank]);
      }
    }
    if (any) wave += std::max(worst, 1u), ++ideal;
  }
  counters.shReq += 1;
  counters.shWave += wave;
  counters.shIdeal += ideal;
  if (ideal) counters.shMaxWays = std::max<uint32_t>(counters.shMaxWays, static_cast<uint32_t>((wave + ideal - 1) / ideal));
}

void BlockRunner::memory(Warp &w, const Instr &in, uint32_t exec) {
  const std::vector<Operand> &o = in.ops;
  if (in.op == Op::Cvta) {
    uint64_t win = windowOf(in.space), mask = typeBytes(in.type) >= 8 ? ~0ull : 0xffffffffull;
    for (uint32_t m = exec; m; m &= m - 1) {
      int l = std::countr_zero(m);
      uint64_t a = read(w, o[1], l);
      write(w, o[0], l, (in.mode == Mode::Down ? a - win : a + win) & mask);
    }
    return;
  }
  const bool store = in.op == Op::St || in.op == Op::Red;
  const Operand &addrOp = in.op == Op::St || in.op == Op::Red ? o[0] : o[1];
  const uint32_t elem = static_cast<uint32_t>(typeBytes(in.type)), total = elem * in.vec;
  uint64_t addrs[32];
  uint32_t sizes[32];
  Space actual = in.space;
  uint32_t globalMask = 0, sharedMask = 0;
  for (uint32_t m = exec; m; m &= m - 1) {
    int l = std::countr_zero(m);
    uint64_t a = (addrOp.reg >= 0 ? w.r[static_cast<size_t>(addrOp.reg) * 32 + static_cast<size_t>(l)] : 0) + addrOp.imm;
    uint8_t *p = resolve(w, in, l, in.space, a, total, store || in.op == Op::Atom, &actual);
    if (actual == Space::Global || actual == Space::Const) {
      globalMask |= 1u << l;
      addrs[l] = reinterpret_cast<uint64_t>(p);
    } else if (actual == Space::Shared) {
      sharedMask |= 1u << l;
      addrs[l] = static_cast<uint64_t>(p - shared.data());
      sharedAccess(w, in, l, static_cast<uint32_t>(addrs[l]), total, in.op != Op::Ld, in.op == Op::Atom || in.op == Op::Red);
    }
    sizes[l] = total;
    if (in.op == Op::Ld) {
      const Operand &d = o[0];
      for (uint32_t e = 0; e < in.vec; ++e) {
        uint64_t v = 0;
        std::memcpy(&v, p + e * elem, elem);
        if (isSigned(in.type) && elem < 8) v = static_cast<uint64_t>(static_cast<int64_t>(v << (64 - 8 * elem)) >> (64 - 8 * elem));
        int32_t slot = d.kind == Operand::Vec ? d.regs[e] : d.reg;
        if (slot >= 0) w.r[static_cast<size_t>(slot) * 32 + static_cast<size_t>(l)] = v;
      }
    } else if (in.op == Op::St) {
      const Operand &s = o[1];
      for (uint32_t e = 0; e < in.vec; ++e) {
        uint64_t v = s.kind == Operand::Vec ? (s.regs[e] >= 0 ? w.r[static_cast<size_t>(s.regs[e]) * 32 + static_cast<size_t>(l)] : 0)
                                            : read(w, s, l);
        std::memcpy(p + e * elem, &v, elem);
      }
    } else { // atom / red
      size_t bi = in.op == Op::Atom ? 2 : 1;
      uint64_t b = read(w, o[bi], l), c = bi + 1 < o.size() ? read(w, o[bi + 1], l) : 0, old;
      if (elem == 4) old = atomicRmw<uint32_t>(p, in.mode, in.type, static_cast<uint32_t>(b), static_cast<uint32_t>(c));
      else if (elem == 8) old = atomicRmw<uint64_t>(p, in.mode, in.type, b, c);
      else error(w, l, in, kIllegalInstruction, "atomics on 8- or 16-bit values are not implemented by the executor");
      if (in.op == Op::Atom) write(w, o[0], l, old);
    }
  }
  if (globalMask) countGlobal(addrs, sizes, globalMask, store);
  if (sharedMask) countShared(addrs, total, sharedMask);
}

// cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}: copies
// now, but marks the bytes as in flight until a wait retires the group.
void BlockRunner::cpAsync(Warp &w, const Instr &in, uint32_t exec) {
  const std::vector<Operand> &o = in.ops;
  uint64_t addrs[32];
  uint32_t sizes[32], globalMask = 0;
  for (uint32_t m = exec; m; m &= m - 1) {
    int l = std::countr_zero(m);
    uint32_t cp = static_cast<uint32_t>(read(w, o[2], l));
    uint32_t srcSize = o.size() > 3 && o[3].kind != Operand::Addr ? static_cast<uint32_t>(read(w, o[3], l)) : cp;
    if (!(cp == 4 || cp == 8 || cp == 16) || srcSize > cp)
      error(w, l, in, kIllegalInstruction, fmt::format("cp.async with cp-size {} and src-size {}", cp, srcSize));
    uint64_t d = (o[0].reg >= 0 ? w.r[static_cast<size_t>(o[0].reg) * 32 + static_cast<size_t>(l)] : 0) + o[0].imm;
    uint64_t s = (o[1].reg >= 0 ? w.r[static_cast<size_t>(o[1].reg) * 32 + static_cast<size_t>(l)] : 0) + o[1].imm;
    Space sp;
    uint8_t *dp = resolve(w, in, l, Space::Shared, d, cp, true, &sp);
    uint32_t off = static_cast<uint32_t>(dp - shared.data());
    sharedAccess(w, in, l, off, cp, true, false);
    if (srcSize) {
      // Aligned to cp-size; src-size bytes are read, the rest zero-filled.
      uint8_t *sp2 = resolve(w, in, l, Space::Global, s, srcSize, false, &sp, cp);
      std::memcpy(dp, sp2, srcSize);
      addrs[l] = s;
      sizes[l] = srcSize;
      globalMask |= 1u << l;
    }
    std::memset(dp + srcSize, 0, cp - srcSize);
    if (L.checks) {
      for (uint32_t b = 0; b < cp; ++b) shadow[off + b].pending = static_cast<uint16_t>(w.id * 32 + static_cast<uint32_t>(l) + 1);
      w.pending[l].push_back({w.committed[l], off, cp});
    }
  }
  if (globalMask) countGlobal(addrs, sizes, globalMask, false);
}

void BlockRunner::cpAsyncWait(Warp &w, const Instr &in, uint32_t exec) {
  for (uint32_t m = exec; m; m &= m - 1) {
    int l = std::countr_zero(m);
    uint64_t keep = in.mode == Mode::All ? 0 : read(w, in.ops[0], l);
    std::vector<Pending> &p = w.pending[l];
    // Groups are numbered by the commits before them; all but the newest
    // `keep` committed groups are complete (wait_all: every copy).
    auto done = [&](const Pending &c) {
      return in.mode == Mode::All || static_cast<uint64_t>(c.group) + keep < w.committed[l];
    };
    for (const Pending &c : p)
      if (done(c))
        for (uint32_t b = 0; b < c.size; ++b) shadow[c.dst + b].pending = 0;
    p.erase(std::remove_if(p.begin(), p.end(), done), p.end());
  }
}

} // namespace tk::cuemu
