// Measurement for LoopTune: compiles loop-IR functions with the x86 backend
// into an object in process, links it with LLVM's ORC JIT (LLJIT) and times
// calls with warm-up and best-of-N; measures the machine's FMA peak once.
#pragma once
#include "backends/x86/X86Backend.h"
#include "ir/LoopIR.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tk::looptune {

// The most the argument buffers of one measured kernel may take together.
constexpr int64_t kMaxMeasureBytes = int64_t(1) << 31; // 2 GiB

// One compiled function with its argument buffers (random inputs in [-1, 1),
// zeroed outputs). Shape symbols and integer scalar parameters take their
// values from `values` (each must be there); tensors must be f32 or f64
// (an f64 tensor's buffer holds its doubles: two floats per element; the
// storage of std::vector is aligned for double). When the buffers' byte
// count overflows int64 or exceeds kMaxMeasureBytes, nothing is allocated
// or compiled: call() returns 3 (the ABI's "too large" status) and
// bestSeconds() infinity, so callers rank such a candidate last.
class JitKernel {
public:
  // Throws tk::InternalError when code generation or linking fails, or a
  // value or the tensor type is missing.
  JitKernel(const ir::LoweredFunc &f, const CpuTarget &target, const std::map<std::string, int64_t> &values = {});
  ~JitKernel();
  JitKernel(const JitKernel &) = delete;
  JitKernel &operator=(const JitKernel &) = delete;

  int call();                         // one call; the ABI status code
  // Best time of one call in seconds: calls for `warmupSec` (at least 2),
  // then takes the fastest of at least `minReps` timed calls and as many
  // more as fit in `budgetSec`.
  double bestSeconds(double warmupSec, int minReps, double budgetSec);
  std::vector<float> &buffer(size_t i) { return buffers_[i]; } // inputs, then outputs

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<std::vector<float>> buffers_;
  std::vector<uintptr_t> args_; // the call's arguments in ABI order (pointers and int64 values)
  void *fn_ = nullptr;
};

// GFLOP/s of one FMA-bound microkernel (independent vector fmuladd chains
// in the target's widest registers) on the calling thread.
double measurePeakGflops(const CpuTarget &target);

} // namespace tk::looptune
