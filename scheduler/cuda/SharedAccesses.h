// SharedAccesses: the accesses of a cuda kernel's `shared` tensors and its
// `sync`s, each with the iteration space it runs in, the thread that runs
// each iteration and its place in the block's program order — the facts
// CheckSharedSync turns into integer sets.
#pragma once
#include "ir/MappingIR.h"

#include <string>
#include <vector>

namespace tk {

// One iteration dimension `@k` of an event, ranging over [0, extent).
struct EventDim {
  // Block: a factor of the launch's blocks mapping. Thread: a spatial
  // factor of a threads or warps mapping, or the thread running a
  // statement outside every such mapping. Lane: the lane of a warp. Loop:
  // a serial loop or a repeat factor (what each thread runs in order).
  // Offset: an element of a multi-element operand (cp_async's n elements,
  // ldmatrix's tile) beyond the one it names.
  enum class Kind { Block, Thread, Lane, Loop, Offset } kind = Kind::Loop;
  ir::Expr extent; // over parameters and outer dimensions
  std::string name; // the variable the user wrote, for messages
};

// One entry of an event's schedule: the pre-order number of a statement
// (its place in the program text), or an iteration dimension.
struct SchedEntry {
  bool isDim = false;
  int64_t seq = 0;
  size_t dim = 0;
};

struct SharedEvent {
  enum class Kind { Read, Write, Atomic, Sync } kind = Kind::Read;
  const ir::TensorDecl *tensor = nullptr; // the shared tensor (null for a sync)
  SourceLoc loc;
  std::vector<EventDim> dims;
  std::vector<ir::Expr> guards;         // conditions over parameters and dimensions
  std::vector<std::string> guardTexts;  // as the user wrote them
  // Program order within one thread: the launch's block dimensions, then for
  // each enclosing loop that has a `sync` in its body its statement number
  // and dimensions, then the event's own statement number. Two events of
  // one block run in the lexicographic order of their schedules (padded
  // with 0), up to the iterations of loops without a barrier.
  std::vector<SchedEntry> sched;
  std::vector<ir::Expr> index;     // the element, over dimensions (Offset ones included)
  std::vector<std::string> source; // the indices as written, for messages
  ir::Expr thread;                 // the thread's index in its block, over dimensions
  // A warp-collective statement (ldmatrix): its warp reads the tile, but
  // which lane reads which element is not modelled.
  bool collective = false;
  bool inThreadMapping = false; // inside a threads or warps mapping
};

struct SharedLaunch {
  std::vector<SharedEvent> events; // in program order
};

// Takes a verified cuda kernel whose holes are filled. Returns, for each
// launch (top-level blocks mapping) that declares a `shared` tensor, the
// reads, writes and atomic updates of its shared tensors — loads in any
// expression, stores (`+=` also reads), cp_async's destination (written),
// ldmatrix's source tile (read by the warp), atomic_add's target — and its
// `sync`s. Everything outside a threads or warps mapping runs on every
// thread of the block (docs/gpu.md, "What a launch means").
std::vector<SharedLaunch> sharedAccesses(const ir::Kernel &k);

} // namespace tk
