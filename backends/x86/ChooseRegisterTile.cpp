#include "backends/x86/ChooseRegisterTile.h"

#include <algorithm>

namespace tk::x86 {

using ir::Expr;
using ir::mentionsVar;


// Each row's broadcast operand is a separate strided stream with its own
// address register; beyond kMaxRows rows the general-purpose registers
// spill before the vector registers run out. Rows whose broadcasts are
// adjacent elements (a packed panel, T[.., r] += P[.., k, r] * ..) share one
// address register, so up to kMaxPackedRows of them fit; that is used for
// nests with several reduction loops (ConstructConvolution's 6-row tiles)
// and for single-loop nests whose rows all fit in one such block (its flat
// pixel version, 6 filters over one channel loop), so taller single-loop
// tiles keep blocks of 4 rather than 6 + a short remainder. A single-loop
// tile of at most kMaxPackedRows strided rows (ConstructSchedule's
// one-panel version reads A in place) is one block too: LLVM steps its
// rows from one pointer by the row stride, and 6 row streams fit.
static constexpr int64_t kMaxRows = 4, kMaxPackedRows = 6;
// A window sum or max (no broadcast operand: pooling) is bound by its
// loads, two per cycle; 8 independent accumulator chains cover that at an
// add's latency of 4 cycles. Wider blocks only run on rows of >= 256
// floats, and each vector of a block is also emitted once more in its
// edge path: at 30 vectors (the register file's limit) avgpool2d's
// object was 96 KB and 1.7 s of LLVM; at 8, see docs/performance.md.
static constexpr int64_t kMaxWindowVectors = 8;

static bool broadcastRowsAdjacent(const ContractionNest &nest) {
  if (!nest.bcast || !nest.rowLoop || (nest.kLoops.size() < 2 && nest.rows > kMaxPackedRows)) return false;
  const std::vector<Expr> &idx = nest.bcast->args;
  const std::string &r = nest.rowLoop->var;
  if (nest.bcast->pred || idx.empty() || !unitStrideIn(idx.back(), r)) return false;
  return std::none_of(idx.begin(), idx.end() - 1, [&](const Expr &i) { return mentionsVar(i, r); });
}

RegisterTile chooseRegisterTile(const ContractionNest &nest, const CpuTarget &target) {
  RegisterTile t;
  t.lanes = std::max(1, target.vectorBits / (8 * ir::scalarTypeBytes(nest.store->tensor->dtype)));
  int64_t regs = target.vectorRegisters;
  int64_t extent = 0;
  int64_t needed = ir::isConstInt(nest.vecLoop->extent, &extent) ? std::max<int64_t>(1, (extent + t.lanes - 1) / t.lanes)
                                                                 : regs;
  // One row: the accumulators, the broadcast and one operand in flight (the
  // vector operand can be an FMA memory operand). Several rows share each
  // loaded vector operand, so those stay live too.
  t.vectorsPerRow = std::min({needed, regs - 2, nest.bcast ? regs : kMaxWindowVectors});
  int64_t fit = std::max<int64_t>(1, (regs - 1 - t.vectorsPerRow) / t.vectorsPerRow);
  int64_t maxRows = broadcastRowsAdjacent(nest) || nest.rows <= kMaxPackedRows ? kMaxPackedRows : kMaxRows;
  t.rowsPerBlock = nest.rows == 1 ? 1 : std::min({nest.rows, fit, maxRows});
  return t;
}

} // namespace tk::x86
