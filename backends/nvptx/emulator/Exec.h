// Exec: what the pieces of the executor share — a launch's state, the
// per-launch counters, and BlockRunner, which runs one thread block at a
// time: warps of 32 lanes that execute each instruction together for the
// lanes at the same program counter (lowest first, so divergent paths
// reconverge where they meet), `bar.sync` across the block, shared memory
// with a shadow for the race and cp.async checks.
#pragma once

#include "DeviceMemory.h"
#include "PtxProgram.h"
#include "tk_cuda_emu.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace tk::cuemu {

// CUresult codes the checks report (cuda.h's values).
enum ErrorCode : int {
  kIllegalAddress = 700,     // CUDA_ERROR_ILLEGAL_ADDRESS
  kIllegalInstruction = 715, // CUDA_ERROR_ILLEGAL_INSTRUCTION
  kMisaligned = 716,         // CUDA_ERROR_MISALIGNED_ADDRESS
  kLaunchFailed = 719,       // CUDA_ERROR_LAUNCH_FAILED
};

struct Counters {
  uint64_t threadInstr = 0, warpInstr = 0, byKind[TK_EMU_KIND_COUNT] = {};
  uint64_t gldReq = 0, gldSectors = 0, gldBytes = 0, gstReq = 0, gstSectors = 0, gstBytes = 0;
  uint64_t shReq = 0, shWave = 0, shIdeal = 0;
  uint32_t shMaxWays = 0;
  uint64_t branches = 0, divergent = 0;
  void add(const Counters &o);
};

struct LaunchState {
  const Kernel *kernel = nullptr;
  std::vector<uint8_t> params;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint32_t dynamicShared = 0;
  std::vector<Range> ranges; // device memory at launch, sorted
  bool checks = true;
  // A block issuing more warp instructions than this is taken to loop forever.
  uint64_t watchdog = uint64_t{1} << 34;
  std::atomic<bool> failed{false};
  std::mutex errorLock;
  int errorCode = 0;
  std::string error;
  // Records the first failure (later ones are dropped: the grid stops).
  void fail(int code, const std::string &message);
};

class BlockRunner {
public:
  explicit BlockRunner(LaunchState &launch);
  // Runs block number `linear` (x fastest) to completion or failure.
  void run(uint64_t linear);
  Counters counters;

private:
  struct Pending { // a cp.async not yet waited for
    uint32_t group, dst, size;
  };
  struct Warp {
    uint32_t id = 0, lanes = 0; // lanes: threads present (the last warp may be partial)
    uint32_t live = 0;          // not exited
    uint32_t waiting = 0;       // at a barrier
    // Converged: every runnable lane is at cpc, and pc[] holds only the
    // waiting lanes' pcs. Diverged: pc[] holds every live lane's pc.
    bool converged = true;
    uint32_t cpc = 0;
    uint32_t pc[32] = {};
    uint64_t *r = nullptr;      // registers: slot * 32 + lane
    uint32_t committed[32] = {}; // cp.async groups committed per lane
    std::vector<Pending> pending[32];
  };
  struct Shadow { // per shared byte: last writer and readers in the current epoch
    uint32_t wEpoch, rEpoch;
    uint16_t wThread, rWarp;
    uint16_t pending; // cp.async owner thread + 1, 0 = settled
    uint8_t rMulti, wAtomic; // readers from several warps; the last write was an atomic
  };

  LaunchState &L;
  const Kernel &k;
  uint32_t nthreads, nwarps;
  uint32_t ctaid[3] = {};
  uint32_t epoch = 0;
  uint64_t blockStart = 0; // counters.warpInstr when the block began (watchdog)
  std::vector<uint64_t> regs;
  std::vector<Warp> warps;
  std::vector<uint8_t> shared;
  uint32_t sharedBytes;
  std::vector<Shadow> shadow;
  std::vector<uint8_t> local;

  bool runWarp(Warp &w);
  bool runaway();
  uint32_t collectiveLanes(const Warp &w, const Instr &in, uint32_t group) const;
  bool releaseBarrier();
  void step(Warp &w, const Instr &in, uint32_t pc, uint32_t group);
  [[noreturn]] void error(const Warp &w, int lane, const Instr &in, int code, const std::string &what);

  // ExecAlu.cpp
  void alu(Warp &w, const Instr &in, uint32_t exec);
  void cvt(Warp &w, const Instr &in, uint32_t exec);
  uint64_t special(const Warp &w, Special s, int lane) const;
  // ExecMemory.cpp
  void memory(Warp &w, const Instr &in, uint32_t exec);
  void cpAsync(Warp &w, const Instr &in, uint32_t exec);
  void cpAsyncWait(Warp &w, const Instr &in, uint32_t exec);
  // The host address of an access, after its bounds and alignment (to
  // `align`, by default the access size) are checked.
  uint8_t *resolve(const Warp &w, const Instr &in, int lane, Space space, uint64_t addr, uint32_t bytes, bool write,
                   Space *actual, uint32_t align = 0);
  void sharedAccess(const Warp &w, const Instr &in, int lane, uint32_t off, uint32_t bytes, bool write, bool atomic);
  void countGlobal(const uint64_t *addr, const uint32_t *bytes, uint32_t exec, bool store);
  void countShared(const uint64_t *addr, uint32_t bytes, uint32_t exec);
  // ExecWarp.cpp
  void shfl(Warp &w, const Instr &in, uint32_t exec);
  void vote(Warp &w, const Instr &in, uint32_t exec);
  void mma(Warp &w, const Instr &in, uint32_t exec);
  void ldmatrix(Warp &w, const Instr &in, uint32_t exec);
  void requireFullWarp(const Warp &w, const Instr &in, uint32_t exec, const char *what);

  uint64_t read(const Warp &w, const Operand &o, int lane) const {
    switch (o.kind) {
    case Operand::Reg: {
      uint64_t v = w.r[static_cast<size_t>(o.reg) * 32 + static_cast<size_t>(lane)];
      return o.negate ? !v : v;
    }
    case Operand::Spec: return special(w, o.spec, lane);
    default: return o.imm;
    }
  }
  void write(Warp &w, const Operand &o, int lane, uint64_t v) {
    if (o.kind == Operand::Reg) w.r[static_cast<size_t>(o.reg) * 32 + static_cast<size_t>(lane)] = v;
  }
  std::string where(const Warp &w, int lane, const Instr &in) const;
};

} // namespace tk::cuemu
