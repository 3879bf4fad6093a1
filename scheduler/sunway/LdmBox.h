// LdmBox: the planning half of StageThroughLdm (StageThroughLdm.h): for
// each main-memory tensor a CPE loop body accesses, the loop level whose
// iterations get an LDM buffer, the box of elements it holds (affine
// ranges of the indices over the loops inside that level), whether it is
// read in (get) and written back (put), and whether it is double-buffered.
// LdmRewrite.h applies the plans.
#pragma once
#include "ir/LoopIR.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tk {

struct LdmPlan {
  ir::TensorPtr tensor;
  bool placed = false;               // false: stays in main memory
  const ir::LStmt *level = nullptr;  // the loop whose body the box covers; null: the whole CPE body
  std::vector<ir::Expr> lo, hi;      // the box, inclusive, per dimension (clamped when applied)
  int64_t capacity = 0;              // elements the buffer holds
  bool get = false, put = false;
  // Two buffers at a serial loop level: the next iteration's box is fetched
  // while this one's is used (get only).
  bool doubleBuffer = false;
  // Every CPE fetches this box alike at the same time (a get at a loop level
  // whose bounds, conditions and box do not depend on the CPE): CPE 0
  // fetches it for all with a broadcast.
  bool shared = false;
  // The CPEs of each row of the 8 x 8 array fetch this box alike (the box
  // depends on the CPE only through its row, cpe / 8): the first CPE of
  // each row fetches it for its row with a row broadcast.
  bool rowShared = false;
  bool broadcast() const { return shared || rowShared; }
  // A read-only box filled once per iteration of a serial loop: what
  // double buffering can fetch ahead, where the LDM has room.
  bool aheadable() const {
    return placed && get && !put && level && level->kind == ir::LStmt::Kind::For &&
           level->forKind == ir::ForKind::Serial;
  }
};

// A constant upper (or lower) bound of integer expression `e` where its
// form shows one: constants combined by +, -, min, max and multiplication
// by a constant.
std::optional<int64_t> constantBound(const ir::Expr &e, bool upper);

// A plan per main-memory tensor accessed in `body` (a CPE loop's body with
// lets inlined), in order of first access. Buffers take at most
// `budgetBytes` in all: while they would take more, the largest moves one
// level deeper, or, at its deepest level, stays in main memory. With
// `doubleBuffer`, read-only boxes at serial loop levels then get a second
// buffer, in order, while the budget has room. With `cpe` (the CPE loop's
// variable) set, read-only boxes at loop levels that do not depend on it
// are marked shared, or row-shared when they depend on it through its row
// (cpe / 8) alone; a read-only box that depends on it through its column
// (cpe % 8) alone is widened, where the budget allows, to the union of the
// boxes of the 8 columns, which is then shared — these two with `rows`.
std::vector<LdmPlan> planLdmBoxes(const ir::LStmtPtr &body, int64_t budgetBytes, bool doubleBuffer,
                                  const std::string &cpe = "", bool rows = false);

} // namespace tk
