// LDM and DMA accounting of a Sunway function for `tkc explain`: the LDM
// buffers a CPE allocates, against the LDM's capacity, and every DMA
// statement with how often it runs and how many bytes it moves at the
// report's sizes (docs/sunway.md).
#pragma once
#include "ir/LoopIR.h"
#include "scheduler/construct/HardwareDesc.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tk::explain {

struct LdmBuffer {
  std::string name, type; // `A.ldm`, `f32[1024]`
  int64_t bytes = 0;
  SourceLoc loc;
};

struct DmaStatement {
  std::string text;   // `dma_get async A[..] -> A.ldm` as the loop IR prints its head
  SourceLoc loc;
  bool put = false, async = false;
  int64_t count = 0;  // times it runs, over all CPEs
  int64_t bytes = 0;  // bytes it moves in all, over all CPEs
};

// The spawn's time by the Sunway performance model (scheduler/sunway/
// SunwayCostModel.h) over the counted transfers and the op's operations,
// spread evenly over the CPEs; and each alone, to say which bounds it.
struct SpawnModel {
  double seconds = 0, dmaSeconds = 0, computeSeconds = 0;
};

struct LdmReport {
  std::vector<LdmBuffer> buffers;
  int64_t bufferBytes = 0;     // all buffers together: what a CPE needs at most
  std::vector<DmaStatement> dmas;
  std::string notCounted;      // why counts are missing (sizes too large, a value unknown)
  std::optional<SpawnModel> model; // when counted and the hardware has a model
};

// Runs the control structure of `f` (loops, conditions, lets; not the
// arithmetic) at `values`, counting each DMA statement and the bytes of its
// boxes. Counting stops, with `notCounted` saying why, after `budget`
// evaluated loop iterations.
LdmReport ldmAccounting(const ir::LoweredFunc &f, const std::map<std::string, int64_t> &values,
                        int64_t budget = 200000);

// The model's time of `report`'s counted transfers with `ops` operations
// of arithmetic, the work split evenly over hw.units CPEs (asynchronous
// transfers are the ones issued ahead, overlapping the arithmetic);
// nullopt when nothing was counted or hw has no main-memory level or rate.
std::optional<SpawnModel> modelSpawn(const LdmReport &report, double ops, const construct::HardwareDesc &hw);

} // namespace tk::explain
