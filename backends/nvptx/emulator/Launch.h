// Launch: runs a grid (LaunchState) over host threads, block by block, and
// turns the counters into the statistics of tk_cuda_emu.h.
#pragma once

#include "Exec.h"

#include <string>

namespace tk::cuemu {

// Runs every block of L (blocks spread over `hostThreads` threads). Returns
// 0, or the CUresult of the first failure (its message in L.error). Fills
// *stats whether or not it failed.
int runGrid(LaunchState &L, int hostThreads, tk_cuda_emu_stats *stats);

// Prints one launch's counters (TK_CUDA_EMU_STATS=1).
void printStats(const tk_cuda_emu_stats &s);

// One launch's counters as a record line (TK_CUDA_EMU_STATS=FILE): `key=value`
// fields separated by tabs, newline-terminated, `kernel=NAME` first; the keys
// are tk_cuda_emu_stats's field names (grid and block as X,Y,Z; by_kind as
// kind_int, kind_float, ...). tkc explain --counters reads them.
std::string statsRecord(const tk_cuda_emu_stats &s);

} // namespace tk::cuemu
