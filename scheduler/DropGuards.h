// Guard conjuncts of loop-IR loads and stores, and removing chosen ones:
// shared by the passes that prove guards true over part of an iteration
// space (VersionFullTiles, PartitionLoops).
#pragma once
#include "ir/LoopIR.h"

#include <set>
#include <string>
#include <vector>

namespace tk {

// The conjuncts of `pred` (a && b && c -> a, b, c), appended to `out`.
void guardConjuncts(const ir::Expr &pred, std::vector<ir::Expr> &out);

// A copy of `s` in which every conjunct of a store or load guard whose text
// (printExpr) is in `proven` is dropped. A load left without a guard loses
// its `else` value too: it is then in range.
ir::LStmtPtr dropGuards(const ir::LStmtPtr &s, const std::set<std::string> &proven);

} // namespace tk
