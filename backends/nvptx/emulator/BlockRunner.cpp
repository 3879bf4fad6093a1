// BlockRunner: warps, control flow and barriers of one thread block
// (Exec.h). Instruction semantics live in ExecAlu, ExecMemory and ExecWarp.
#include "Exec.h"

#include <fmt/format.h>

#include <bit>

namespace tk::cuemu {

namespace {
struct BlockFailure {};
} // namespace

void Counters::add(const Counters &o) {
  threadInstr += o.threadInstr;
  warpInstr += o.warpInstr;
  for (int i = 0; i < TK_EMU_KIND_COUNT; ++i) byKind[i] += o.byKind[i];
  gldReq += o.gldReq, gldSectors += o.gldSectors, gldBytes += o.gldBytes;
  gstReq += o.gstReq, gstSectors += o.gstSectors, gstBytes += o.gstBytes;
  shReq += o.shReq, shWave += o.shWave, shIdeal += o.shIdeal;
  shMaxWays = std::max(shMaxWays, o.shMaxWays);
  branches += o.branches, divergent += o.divergent;
}

void LaunchState::fail(int code, const std::string &message) {
  std::lock_guard<std::mutex> g(errorLock);
  if (failed.load()) return;
  errorCode = code;
  error = message;
  failed.store(true);
}

BlockRunner::BlockRunner(LaunchState &launch) : L(launch), k(*launch.kernel) {
  nthreads = L.block[0] * L.block[1] * L.block[2];
  nwarps = (nthreads + 31) / 32;
  regs.assign(static_cast<size_t>(nwarps) * k.numSlots * 32, 0);
  warps.resize(nwarps);
  sharedBytes = k.dynamicSharedOffset() + L.dynamicShared;
  shared.assign(sharedBytes, 0);
  if (L.checks) shadow.assign(sharedBytes, Shadow{});
  local.assign(static_cast<size_t>(k.localBytes) * nthreads, 0);
}

std::string BlockRunner::where(const Warp &w, int lane, const Instr &in) const {
  uint32_t t = w.id * 32 + static_cast<uint32_t>(lane);
  uint32_t tx = t % L.block[0], ty = t / L.block[0] % L.block[1], tz = t / (L.block[0] * L.block[1]);
  std::string text = static_cast<size_t>(in.line) < k.lines.size() ? k.lines[static_cast<size_t>(in.line)] : "";
  return fmt::format("kernel '{}' block ({},{},{}) thread ({},{},{}) (warp {} lane {}): PTX line {} `{}`", k.name, ctaid[0],
                     ctaid[1], ctaid[2], tx, ty, tz, w.id, lane, in.line, text);
}

void BlockRunner::error(const Warp &w, int lane, const Instr &in, int code, const std::string &what) {
  L.fail(code, fmt::format("{}: {}", where(w, lane, in), what));
  throw BlockFailure{};
}

void BlockRunner::run(uint64_t linear) {
  ctaid[0] = static_cast<uint32_t>(linear % L.grid[0]);
  ctaid[1] = static_cast<uint32_t>(linear / L.grid[0] % L.grid[1]);
  ctaid[2] = static_cast<uint32_t>(linear / (static_cast<uint64_t>(L.grid[0]) * L.grid[1]));
  ++epoch;
  for (uint32_t i = 0; i < nwarps; ++i) {
    Warp &w = warps[i];
    w.id = i;
    w.lanes = std::min<uint32_t>(32, nthreads - i * 32);
    w.live = w.lanes == 32 ? ~0u : (1u << w.lanes) - 1;
    w.waiting = 0;
    w.converged = true;
    w.cpc = 0;
    w.r = regs.data() + static_cast<size_t>(i) * k.numSlots * 32;
    for (int l = 0; l < 32; ++l) {
      w.committed[l] = 0;
      w.pending[l].clear();
    }
  }
  blockStart = counters.warpInstr;
  try {
    for (;;) {
      bool ran = false;
      for (Warp &w : warps) {
        if (!(w.live & ~w.waiting)) continue;
        ran = true;
        if (!runWarp(w) || runaway()) return;
      }
      if (!ran && !releaseBarrier()) break;
    }
  } catch (const BlockFailure &) {
    return;
  }
  // cp.async copies never waited for: their data is already in place here,
  // but the shadow must not carry their marks into the next block.
  if (L.checks)
    for (Warp &w : warps)
      for (auto &p : w.pending)
        for (const Pending &c : p)
          for (uint32_t b = 0; b < c.size; ++b) shadow[c.dst + b].pending = 0;
}

// The lanes a warp-collective instruction needs besides `group` (0 for
// any other instruction).
uint32_t BlockRunner::collectiveLanes(const Warp &w, const Instr &in, uint32_t group) const {
  int l = std::countr_zero(group);
  switch (in.op) {
  case Op::Shfl: return static_cast<uint32_t>(read(w, in.ops[(in.pair ? 2 : 1) + 3], l));
  case Op::Vote: return static_cast<uint32_t>(read(w, in.ops[2], l));
  case Op::BarWarp: return in.ops.empty() ? w.live : static_cast<uint32_t>(read(w, in.ops[0], l));
  case Op::Mma:
  case Op::Ldmatrix: return w.live;
  default: return 0;
  }
}

// True, with the launch failed, once the block has issued more warp
// instructions than the watchdog allows.
bool BlockRunner::runaway() {
  if (counters.warpInstr - blockStart <= L.watchdog) return false;
  L.fail(kLaunchFailed, fmt::format("kernel '{}' block ({},{},{}): more than {} warp instructions in one block; "
                                    "an endless loop?", k.name, ctaid[0], ctaid[1], ctaid[2], L.watchdog));
  return true;
}

// Runs the warp until none of its lanes can go on (exited or at a barrier).
// Returns false when the launch failed.
bool BlockRunner::runWarp(Warp &w) {
  const Instr *code = k.code.data();
  for (uint32_t n = 0;; ++n) {
    uint32_t runnable = w.live & ~w.waiting;
    if (!runnable) return true;
    // Another block failed, or this one runs away.
    if ((n & 0xffff) == 0xffff && (L.failed.load(std::memory_order_relaxed) || runaway())) return false;
    uint32_t pc, group;
    if (w.converged) {
      pc = w.cpc;
      group = runnable;
    } else {
      // The lowest pc first, so that paths meet again where they join; but
      // a warp-collective instruction (.sync) waits until every lane it
      // names has arrived, as on sm_70+, wherever the paths were laid out.
      uint32_t parked = 0;
      for (;;) {
        uint32_t cand = runnable & ~parked;
        bool force = !cand;
        if (force) cand = runnable; // all wait at collectives: run one, the mask check reports it
        pc = UINT32_MAX;
        for (uint32_t m = cand; m; m &= m - 1) pc = std::min(pc, w.pc[std::countr_zero(m)]);
        group = 0;
        for (uint32_t m = cand; m; m &= m - 1)
          if (w.pc[std::countr_zero(m)] == pc) group |= 1u << std::countr_zero(m);
        if (force || !(collectiveLanes(w, code[pc], group) & runnable & ~group)) break;
        parked |= group;
      }
    }
    step(w, code[pc], pc, group);
    if (!w.converged) { // reconverged when every runnable lane is at one pc
      runnable = w.live & ~w.waiting;
      if (runnable) {
        uint32_t first = w.pc[std::countr_zero(runnable)];
        bool same = true;
        for (uint32_t m = runnable; m && same; m &= m - 1) same = w.pc[std::countr_zero(m)] == first;
        if (same) {
          w.converged = true;
          w.cpc = first;
        }
      }
    }
  }
}

bool BlockRunner::releaseBarrier() {
  uint32_t barrierPc = UINT32_MAX, waitingThreads = 0, exited = 0;
  const Warp *firstWarp = nullptr;
  int firstLane = 0;
  for (const Warp &w : warps) {
    waitingThreads += static_cast<uint32_t>(std::popcount(w.waiting));
    exited += w.lanes - static_cast<uint32_t>(std::popcount(w.live));
    for (uint32_t m = w.waiting; m; m &= m - 1) {
      int l = std::countr_zero(m);
      if (barrierPc == UINT32_MAX) {
        barrierPc = w.pc[l];
        firstWarp = &w;
        firstLane = l;
      } else if (w.pc[l] != barrierPc) {
        const Instr &a = k.code[barrierPc - 1], &b = k.code[w.pc[l] - 1];
        error(w, l, b, kLaunchFailed,
              fmt::format("threads of one block wait at different barriers (PTX lines {} and {}): a bar.sync under "
                          "a condition that differs between threads", a.line, b.line));
      }
    }
  }
  if (!waitingThreads) return false;
  if (exited && L.checks)
    error(*firstWarp, firstLane, k.code[barrierPc - 1], kLaunchFailed,
          fmt::format("bar.sync reached by {} of the block's {} threads; the other {} exited without reaching it",
                      waitingThreads, nthreads, exited));
  ++epoch;
  // Every live lane waited here, so every pc is in pc[].
  for (Warp &w : warps) {
    w.waiting = 0;
    if (!w.live) continue;
    uint32_t first = w.pc[std::countr_zero(w.live)];
    bool same = true;
    for (uint32_t m = w.live; m && same; m &= m - 1) same = w.pc[std::countr_zero(m)] == first;
    w.converged = same;
    w.cpc = first;
  }
  return true;
}

// Executes `in` for the lanes of `group` (all at `pc`), then moves them on.
void BlockRunner::step(Warp &w, const Instr &in, uint32_t pc, uint32_t group) {
  uint32_t exec = group;
  if (in.guard >= 0) {
    exec = 0;
    const uint64_t *g = w.r + static_cast<size_t>(in.guard) * 32;
    for (uint32_t m = group; m; m &= m - 1) {
      int l = std::countr_zero(m);
      if ((g[l] != 0) != in.guardNeg) exec |= 1u << l;
    }
  }
  uint32_t n = static_cast<uint32_t>(std::popcount(exec));
  ++counters.warpInstr;
  counters.threadInstr += n;
  counters.byKind[static_cast<int>(in.kind)] += n;
  auto advance = [&](uint32_t lanes) {
    if (w.converged) ++w.cpc;
    else
      for (uint32_t m = lanes; m; m &= m - 1) ++w.pc[std::countr_zero(m)];
  };
  switch (in.op) {
  case Op::Bra: {
    if (in.guard >= 0) ++counters.branches;
    uint32_t target = static_cast<uint32_t>(in.target);
    if (w.converged && exec == group) {
      w.cpc = target;
    } else if (w.converged && exec == 0) {
      ++w.cpc;
    } else {
      if (exec != group && exec != 0) ++counters.divergent;
      w.converged = false;
      for (uint32_t m = group; m; m &= m - 1) {
        int l = std::countr_zero(m);
        w.pc[l] = (exec >> l & 1u) ? target : pc + 1;
      }
    }
    return;
  }
  case Op::Ret:
  case Op::Exit:
    w.live &= ~exec;
    advance(group & ~exec);
    return;
  case Op::Trap:
    if (exec) error(w, std::countr_zero(exec), in, kLaunchFailed, "trap executed");
    break;
  case Op::Bar:
    w.waiting |= exec;
    for (uint32_t m = exec; m; m &= m - 1) w.pc[std::countr_zero(m)] = pc + 1;
    advance(group & ~exec);
    return;
  case Op::BarWarp: {
    uint32_t mask = in.ops.empty() ? ~0u : static_cast<uint32_t>(read(w, in.ops[0], std::countr_zero(exec | 1u)));
    if (L.checks && exec && (mask & w.live) != exec && (mask & w.live & ~exec))
      error(w, std::countr_zero(exec), in, kIllegalInstruction,
            fmt::format("bar.warp.sync with membermask {:#010x} while only lanes {:#010x} execute it", mask, exec));
    break;
  }
  case Op::Membar:
  case Op::Nop: break;
  case Op::Shfl: shfl(w, in, exec); break;
  case Op::Vote: vote(w, in, exec); break;
  case Op::Mma: mma(w, in, exec); break;
  case Op::Ldmatrix: ldmatrix(w, in, exec); break;
  case Op::CpAsync: cpAsync(w, in, exec); break;
  case Op::CpAsyncCommit:
    for (uint32_t m = exec; m; m &= m - 1) ++w.committed[std::countr_zero(m)];
    break;
  case Op::CpAsyncWait: cpAsyncWait(w, in, exec); break;
  case Op::Ld:
  case Op::St:
  case Op::Atom:
  case Op::Red:
  case Op::Cvta: memory(w, in, exec); break;
  case Op::Cvt: cvt(w, in, exec); break;
  default: alu(w, in, exec); break;
  }
  advance(group);
}

} // namespace tk::cuemu
