// Guard conjuncts of loop-IR loads and stores, where they hold along a loop,
// and removing chosen ones: shared by the passes that prove guards true over
// part of an iteration space (VersionFullTiles, PartitionLoops,
// cuda/SplitDeviceLoops).
#pragma once
#include "ir/LoopIR.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tk {

// The conjuncts of `pred` (a && b && c -> a, b, c), appended to `out`.
void guardConjuncts(const ir::Expr &pred, std::vector<ir::Expr> &out);

// A copy of `s` in which every conjunct of a store or load guard whose text
// (printExpr) is in `proven` is dropped. A load left without a guard loses
// its `else` value too: it is then in range.
// Where conjunct `g` holds along v: v >= lower (when set) and v < upper
// (when set), exactly, for an integer comparison affine in v with a
// constant non-zero coefficient (the rest may be anything without v);
// nullopt for other conjuncts.
struct GuardRange {
  ir::Expr lower, upper;
};
std::optional<GuardRange> solveGuardAlong(const ir::Expr &g, const std::string &v);

// The names bound inside loop `s`: its variable and the loops and lets of
// its body.
std::set<std::string> namesBoundIn(const ir::LStmtPtr &s);

// A copy of loop `proto` over [begin, end) with `body`: one slice of a loop
// split where its guards start or stop holding.
ir::LStmtPtr loopSlice(const ir::LStmt &proto, const ir::Expr &begin, const ir::Expr &end, ir::LStmtPtr body);

// Whether `e` mentions a variable named in `names`.
bool mentionsAny(const ir::Expr &e, const std::set<std::string> &names);

// The guard conjuncts of the loads and stores in loop `s`'s body that do not
// vary inside it (mention neither its variable nor one bound in its body: a
// stencil's row conditions inside the loop over j): their texts are added
// to `texts`, and their conjunction returned (null when none).
ir::Expr invariantGuards(const ir::LStmtPtr &s, std::set<std::string> &texts);

ir::LStmtPtr dropGuards(const ir::LStmtPtr &s, const std::set<std::string> &proven);

} // namespace tk
