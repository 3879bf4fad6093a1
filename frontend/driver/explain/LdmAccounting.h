// LDM and DMA accounting of a Sunway function for `tkc explain`: the LDM
// buffers a CPE allocates, against the LDM's capacity, and every DMA
// statement with how often it runs and how many bytes it moves at the
// report's sizes (docs/sunway.md).
#pragma once
#include "ir/LoopIR.h"

#include <cstdint>
#include <map>
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

struct LdmReport {
  std::vector<LdmBuffer> buffers;
  int64_t bufferBytes = 0;     // all buffers together: what a CPE needs at most
  std::vector<DmaStatement> dmas;
  std::string notCounted;      // why counts are missing (sizes too large, a value unknown)
};

// Runs the control structure of `f` (loops, conditions, lets; not the
// arithmetic) at `values`, counting each DMA statement and the bytes of its
// boxes. Counting stops, with `notCounted` saying why, after `budget`
// evaluated loop iterations.
LdmReport ldmAccounting(const ir::LoweredFunc &f, const std::map<std::string, int64_t> &values,
                        int64_t budget = 200000);

} // namespace tk::explain
