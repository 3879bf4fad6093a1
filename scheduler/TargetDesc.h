// TargetDesc: the instruction set the scheduler plans for, as the target's
// backend resolved it from --target (backends/Backend.h: one record per
// target, never looked up by the spelling of its name). What the machine
// has (caches, bandwidths, units) is the other half of a target's
// description: construct::HardwareDesc, from --hw or the host.
#pragma once
#include "ir/Type.h"

namespace tk {

struct TargetDesc {
  ir::TargetFamily family = ir::TargetFamily::Cpu;
  int vectorBits = 256;     // SIMD width of a CPU target (128/256/512)
  int vectorRegisters = 16; // architectural vector registers of that width (x86: 16, 32 with AVX-512)
  int cores = 0;            // 0 = decided at run time by the runtime's thread pool
  // 8-bit dot products into 32-bit lanes (x86: AVX512-VNNI's vpdpbusd, four
  // u8 x s8 products per lane): int8 contractions are then packed in byte
  // quads (ConstructByteContraction.h).
  bool byteDot = false;
};

} // namespace tk
