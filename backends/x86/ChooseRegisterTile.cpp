#include "backends/x86/ChooseRegisterTile.h"

#include <algorithm>

namespace tk::x86 {

// At most this many rows per block, the rows split into equal blocks. The
// register file alone would allow 30 rows of one vector, but LLVM then
// spills: measured on user kernels whose rows broadcast strided elements
// of A (2 threads, median of 11 calls, three runs each): an 8 x 32 tile at
// 1024^3 ran 16.4-17.0 ms in blocks of 4, 16.4-18.3 in 6 + 2 and 11.8-13.5
// in one block of 8; a 24 x 16 tile 29-31 ms in blocks of 4, 16.5-17.6 in
// 6, 12.6-15.0 in 8, 16.7-19.7 in 12 and 46-49 in one block of 24; a
// 12 x 16 tile at 2048^3 856-883 ms in 4, 517-572 in 6 + 6, 620-624 in
// 8 + 4 and 429-449 in one block of 12 (the same at 1024^3 for 6, 8, 12).
static constexpr int64_t kMaxRows = 8;
// A window sum or max (no broadcast operand: pooling) is bound by its
// loads, two per cycle; 8 independent accumulator chains cover that at an
// add's latency of 4 cycles. Wider blocks only run on rows of >= 256
// floats, and each vector of a block is also emitted once more in its
// edge path: at 30 vectors (the register file's limit) avgpool2d's
// object was 96 KB and 1.7 s of LLVM; at 8, see docs/performance.md.
static constexpr int64_t kMaxWindowVectors = 8;

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
  int64_t most = std::min(fit, kMaxRows), blocks = (nest.rows + most - 1) / most;
  t.rowsPerBlock = (nest.rows + blocks - 1) / blocks;
  return t;
}

} // namespace tk::x86
