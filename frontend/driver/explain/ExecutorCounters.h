// The PTX executor's counters of the launches a program made
// (TK_CUDA_EMU_STATS=FILE, backends/nvptx/emulator/tk_cuda_emu.h), read
// back for `tkc explain --counters FILE`: what each export's device
// kernels did when they ran — coalescing, bank conflicts, tensor-core
// instructions, occupancy — measured over whole launches rather than
// computed from the indices of the first warp.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tk::explain {

// One launch record: its key=value fields.
using CounterRecord = std::map<std::string, std::string>;

// The records of `text` (one per line, tab-separated key=value fields,
// `kernel=NAME` first; blank lines skipped). Nullopt with *error naming the
// line when a line is not such a record.
std::optional<std::vector<CounterRecord>> parseCounterRecords(std::string_view text, std::string *error);

// One device kernel's launches, summed.
struct KernelCounters {
  std::string kernel; // the PTX entry (SYMBOL_k0, SYMBOL_k1, ...)
  int launches = 0;
  std::string grid, block; // of the last launch, "X,Y,Z"
  uint64_t warpInstructions = 0, mma = 0; // mma: warp-level tensor-core instructions
  uint64_t globalLoadSectors = 0, globalLoadBytes = 0, globalStoreSectors = 0, globalStoreBytes = 0;
  uint64_t sharedRequests = 0, sharedWavefronts = 0, sharedIdealWavefronts = 0;
  uint32_t sharedMaxWays = 0; // worst single request of any launch
  uint64_t branches = 0, divergentBranches = 0;
  uint32_t registersPerThread = 0; // last launch
  double theoreticalOccupancy = 0, achievedOccupancy = 0;
  std::string occupancyLimit;

  // Bytes the lanes asked for over bytes of the 32-byte sectors moved (1 = coalesced).
  double loadEfficiency() const;
  double storeEfficiency() const;
  // Shared-memory passes over the conflict-free count (1 = no bank conflicts).
  double sharedConflictFactor() const;
};

// The kernels of export `symbol` among `records` (entries named
// `symbol_k<N>`), in kernel order, each summed over its launches.
std::vector<KernelCounters> countersOf(const std::vector<CounterRecord> &records, const std::string &symbol);

} // namespace tk::explain
