#include "scheduler/costmodel/Simd.h"

#include <algorithm>
#include <atomic>

namespace tk::costmodel {
namespace {

std::atomic<SimdLevel> &chosenLevel() {
  static std::atomic<SimdLevel> level{bestSimdLevel()};
  return level;
}

} // namespace

SimdLevel bestSimdLevel() {
  // libgcc's checks include the OS's support for the wider registers.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return SimdLevel::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return SimdLevel::Avx2;
  return SimdLevel::Baseline;
}

SimdLevel simdLevel() { return chosenLevel().load(std::memory_order_relaxed); }

void setSimdLevel(SimdLevel level) { chosenLevel().store(std::min(level, bestSimdLevel()), std::memory_order_relaxed); }

} // namespace tk::costmodel
