// Reductions into one element along a unit-stride loop — `gemv`'s
// `acc = acc + A[i, j] * x[j]`, `row_sum`'s `acc = acc + X[i, j]`,
// `softmax`'s `acc = max(acc, X[i, j])`:
//
//   [for r in .. { ... ]         (optional outer loops of a perfect nest:
//   for j in ..                    a pool's window rows, whose elements all
//     T[idx] = T[idx] op E         fold into the same accumulators)
//                                  (op: + max min; idx and guard ignore j and r..)
//
// where E is a unit-stride load along j, or a product of two loads each
// unit-stride or j-invariant (at least one unit-stride); guards that mention
// j must be lane-maskable (MatchContraction.h). Emitted as several
// independent vector accumulators (enough to cover the FMA latency and keep
// loads in flight), full unmasked blocks, one masked tail vector, and a
// horizontal reduction at the end. Sums are reassociated (the e2e tolerance
// is the bound of any summation order); max/min are exact in any order.
#pragma once
#include "backends/x86/CodegenContext.h"

#include <optional>
#include <string>
#include <vector>

namespace tk::x86 {

struct ReductionLoop {
  std::vector<const ir::LStmt *> outer; // loops around `loop`, outermost first (the nest's root first)
  const ir::LStmt *loop = nullptr;  // the loop along which E is reduced
  const ir::LStmt *store = nullptr; // T[idx] = T[idx] op E
  ir::BinOp op = ir::BinOp::Add;
  ir::Expr accLoad;                 // T[idx] in the value
  ir::Expr lhs, rhs;                // E = lhs (rhs null) or lhs * rhs
};

// The reduction rooted at `loop` (itself the vector loop, or the outermost
// loop of a perfect nest of serial loops whose innermost is), or nullopt
// with the reason (when `reason` is non-null). Pure analysis; requires
// verified loop IR.
std::optional<ReductionLoop> matchVectorReduction(const ir::LStmt &loop, std::string *reason = nullptr);

// Accumulators kept in flight per reduction on `target`.
int reductionAccumulators(const CpuTarget &target);

// Emits `r` at the builder's insertion point in place of its root loop
// (r.outer's first, else r.loop): the accumulators live across the outer
// loops too, so the lanes are combined and T is stored once.
void emitVectorReduction(CodegenContext &cg, const ReductionLoop &r);

} // namespace tk::x86
