// Symbolic ranges of affine index expressions over the loops that enclose
// them, and whether a read's guard says no more than "in bounds" — what a
// pass needs to size a padded copy of what the read sees
// (DeinterleaveStridedRows' padded phase rows).
#pragma once
#include "ir/LoopIR.h"

#include <map>
#include <optional>
#include <set>
#include <string>

namespace tk {

// Inclusive bounds [lo, hi] as expressions over shape symbols and scalars.
struct IndexRange {
  ir::Expr lo, hi;
};

// The range of integer expression `e` when each variable in `loops` runs
// over its loop's iterations [min, min + extent - 1] (extent >= 1 assumed:
// the range is only used for iterations that run). Requires e affine in
// those variables, their loops' bounds free of any variable in `loops` or
// `bound`, and every other atom free of them too (`bound`: variables that
// are neither symbols nor such loops, e.g. let bindings); else nullopt.
std::optional<IndexRange> affineRange(const ir::Expr &e, const std::map<std::string, const ir::LStmt *> &loops,
                                      const std::set<std::string> &bound);

// True when every conjunct of load `ld`'s guard (none: its implicit bounds,
// with an `else` value) is one of its tensor's bounds conditions
// 0 <= idx_d, idx_d < extent_d in some arrangement, so the guard says
// exactly that the element exists (up to conditions already proven).
bool guardOnlyBounds(const ir::Expr &ld);

} // namespace tk
