// Decisions: the scheduling choices behind one candidate kernel as a
// sequence of primitives — the input of the learned cost model (TLP: it
// reads the schedule, not the generated code) and the `decisions` of a
// record (docs/records.md). A primitive is a kind, numbers and names:
//   op(elem_bytes) [name]         the op and its widest element
//   loop(extent, reduction, dim) [var] one per dimension of the op's loop nest
//   threads(units)                the workers the kernel is spread over
//   register_tile, pack_depth, task_tile, direct_depth, stream
//                                 the blocking of a constructed contraction
//                                 (scheduler/cpu/ContractionSpace.h)
//   nest_loop(dim, step, iterations, tail) [var]
//                                 one loop of a LoopTune nest, outermost
//                                 first (scheduler/looptune/TuneDecisions.h)
// Like the split steps TLP reads, which carry the extent they split, a
// blocking decision carries what it makes of the extents — tile counts,
// tasks and idle units, which version runs — so the network sees a tile and
// its effect in one row instead of relating rows through attention, and
// needs no ceil or modulo of its own.
// Kinds are appended, never renumbered: the feature layout (Featurize.h)
// and shipped weights depend on their order.
#pragma once
#include "scheduler/construct/HardwareDesc.h"
#include "scheduler/construct/LoopNest.h"

#include <optional>
#include <string>
#include <vector>

namespace tk::costmodel {

enum class PrimitiveKind {
  Op, Loop, Threads, RegisterTile, PackDepth, TaskTile, DirectDepth, Stream, NestLoop,
};
inline constexpr int kPrimitiveKinds = 9;
// The most numbers a primitive of any kind carries.
inline constexpr int kMaxPrimitiveNumbers = 4;

struct Primitive {
  PrimitiveKind kind = PrimitiveKind::Op;
  std::vector<double> numbers;
  std::vector<std::string> names;
  bool operator==(const Primitive &) const = default;
};
using DecisionSequence = std::vector<Primitive>;

// The record name of a kind ("register_tile") and back (nullopt: unknown).
const char *primitiveName(PrimitiveKind k);
std::optional<PrimitiveKind> primitiveKind(const std::string &name);
// How many numbers and names a primitive of kind `k` carries.
int primitiveNumbers(PrimitiveKind k);
int primitiveNames(PrimitiveKind k);

// "register_tile(6, 64)", "loop(1024, 0) [i]": for traces and messages.
std::string printPrimitive(const Primitive &p);

// What every candidate of an op shares: op, one loop per nest dimension
// (in the nest's order) and the hardware's units.
DecisionSequence nestDecisions(const construct::LoopNest &nest, const construct::HardwareDesc &hw);

} // namespace tk::costmodel
