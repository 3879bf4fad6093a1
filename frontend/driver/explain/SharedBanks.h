// Which shared-memory bank each lane of a warp touches, for `tkc explain`:
// the shared-tensor accesses under a CUDA thread or lane mapping, evaluated
// for the first warp (workers 0..31) with the loops inside and around the
// mapping at their first iteration.
#pragma once
#include "ir/MappingIR.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tk::explain {

struct BankAccess {
  std::string text;          // `As[ti * 4 + ri, k] (read)`
  SourceLoc loc;
  std::vector<int64_t> bank; // per lane; -1 where the lane does not map to a task
  // Most distinct 4-byte words any one bank serves for this warp: 1 is
  // conflict-free (lanes reading one word share a broadcast), n an n-way
  // conflict that the hardware serializes into n transactions.
  int ways = 0;
  std::string svg;           // the 32 lanes coloured by bank
};

// The accesses of `mapFor` (a MapFor on threads or lanes) to shared
// tensors, at most `limit` of them, first writes then reads in source
// order. Sizes and scalar parameters come from `values`; an access whose
// address cannot be evaluated is left out.
std::vector<BankAccess> sharedBankAccesses(const ir::MStmt &mapFor, const std::map<std::string, int64_t> &values,
                                           size_t limit = 4);

} // namespace tk::explain
