// Who computes what: every task-mapping loop of a kernel that is bound to a
// worker kind (cores, lanes, blocks, warps, threads, CPEs), drawn as its
// task grid coloured by worker, for `tkc explain` (docs/explain.md).
#pragma once
#include "frontend/driver/explain/SharedBanks.h"
#include "ir/MappingIR.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tk::explain {

// Which worker runs task `task` of a mapping whose atoms have the concrete
// task shapes `dims` (one vector per atom, all of the mapping's rank), and
// where in that worker's sequence of tasks it comes. Follows Hidet's rule
// as ir::mappingTasks spells it: task t splits into one digit per atom,
// t = (..(t1 * d2 + t2) * d3 + ..); a spatial atom's digit is a worker
// coordinate, a repeat atom's digit a loop step; workers and steps compose
// the same way (w = w1 * n2 + w2). Nullopt when `task` lies outside the
// task shape.
struct TaskOwner {
  int64_t worker = 0; // id among the mapping's workers
  int64_t step = 0;   // position in that worker's sequence (0 for pure spatial mappings)
};
std::optional<TaskOwner> taskOwner(const ir::TaskMapping &m, const std::vector<std::vector<int64_t>> &dims,
                                   const std::vector<int64_t> &task);

struct MappingPicture {
  std::string header; // the loop as written: `for (i, j) in spatial(4, 2) * repeat(2, 2) on threads`
  SourceLoc loc;
  int depth = 0;      // how many worker-bound mapping loops enclose it (block -> warp -> thread)
  std::string svg;    // the grid; empty when it could not be drawn
  std::string note;   // what is shown (a window of a large grid) or why nothing is
  std::vector<BankAccess> banks; // CUDA thread and lane mappings: shared-memory banks of the first warp
};

// The pictures of kernel `k`'s worker-bound mapping loops, outermost first
// in source order. Shape symbols and scalar parameters take their values
// from `values`; a loop whose dims need other values (an enclosing loop's
// variable) gets a note instead of a picture. Grids larger than 48 x 64
// tasks show their top-left 48 x 64 window. Thread and lane mappings of
// CUDA kernels also get the banks of their shared-memory accesses.
std::vector<MappingPicture> mappingPictures(const ir::Kernel &k, const std::map<std::string, int64_t> &values);

} // namespace tk::explain
