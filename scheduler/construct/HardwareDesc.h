// HardwareDesc: a machine as the construction optimizer sees it — memory
// levels (capacity, bandwidth, latency, transaction size, banks), compute
// rates and parallel-unit limits. Read from the versioned text format of
// docs/hardware.md (stdlib/targets/*.hw), or detected for the host CPU by
// the driver (frontend/driver/HostHardware.h): the scheduler never probes
// the machine it runs on.
#pragma once
#include "ir/Diagnostics.h"
#include "ir/Type.h"

#include <optional>
#include <string>
#include <vector>

namespace tk::construct {

// One memory level. Figures are per parallel unit (core, SM, CPE) unless
// `shared` is set, in which case capacity and bandwidth are for the whole
// machine and each unit gets 1/units of them.
struct MemLevel {
  std::string name;
  int64_t capacity = 0;      // bytes
  double bandwidth = 0;      // GB/s (= bytes/ns) delivered to the next faster level
  double latency = 0;        // ns
  int64_t transaction = 0;   // bytes per memory transaction
  int banks = 0;             // 0 = not banked
  int bankWidth = 0;         // bytes per bank
  bool shared = false;
  // The kernel scope whose tensors this level holds (`scope = shared` in
  // the file): how passes find e.g. a GPU's shared memory, by kind rather
  // than by the level's name. Unset for levels no tensor scope names
  // (caches).
  std::optional<ir::Scope> scope;
};

struct HardwareDesc {
  int format = 1;
  std::string name;
  ir::TargetFamily family = ir::TargetFamily::Cpu;
  int units = 1;                 // cores / SMs / CPEs
  int vectorBits = 0;            // SIMD width (CPU, Sunway)
  double gflopsF32 = 0;          // fp32 FMA rate per unit, GFLOP/s (2 flops per FMA)
  double gflopsF16 = 0;          // fp16 rate per unit (tensor cores included); 0 = as f32
  int warpSize = 0;              // GPU
  int maxThreadsPerBlock = 0;    // GPU
  int maxRegistersPerThread = 0; // GPU (32-bit registers)
  int registersPerUnit = 0;      // GPU register file per SM (32-bit registers)
  std::string tensorCoreShape;   // e.g. "16x8x16"; empty = none
  double barrierNs = 0;          // Sunway: an array-wide barrier of the units, ns; 0 = one main-memory latency
  // Slowest (main memory) first, registers last.
  std::vector<MemLevel> levels;

  // The level holding tensors of `scope`; null when none does.
  const MemLevel *levelFor(ir::Scope scope) const;
  // Capacity and bandwidth one unit can count on at level `l`.
  int64_t unitCapacity(size_t l) const;
  double unitBandwidth(size_t l) const;
};

// Parses the text of a description file (already added to the source
// manager as `fileId`, so errors point into it). Reports every malformed
// line, unknown key or missing required key as a located error and returns
// nullopt then.
std::optional<HardwareDesc> parseHardwareDesc(const std::string &text, int fileId, DiagEngine &diags);

// The text form (the same format; parseHardwareDesc(printHardwareDesc(h))
// gives h back). Used by `tkc --hw=host --emit=...` traces and tests.
std::string printHardwareDesc(const HardwareDesc &h);

} // namespace tk::construct
