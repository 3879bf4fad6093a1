#include "backends/x86/EmitRegisterTile.h"

#include "backends/common/LowerExprToLLVM.h"
#include "backends/x86/LaneMask.h"
#include "backends/x86/OutlineCall.h"
#include "backends/x86/TileEmitter.h"

#include <llvm/IR/Intrinsics.h>

namespace tk::x86 {

using codegen::lowerExprAs;
using ir::Expr;
using ir::ScalarType;

// Row blocks emitted one after another (more loop over the blocks). A
// 64 x 16 user tile (8 blocks of 8 rows, 1024^3, 2 threads, three runs)
// ran 12.7-13.3 ms unrolled and 12.5-12.8 as a loop, with half the text
// (24 -> 12 KB); a 128-row tile, refused before, runs in 14-15 ms instead
// of the default code's 220.
static constexpr int64_t kMaxUnrolledBlocks = 4;
// Reductions of at least this many steps run in a function of their own
// (see emitRegisterTile).
static constexpr int64_t kMinOutlinedSteps = 64;

namespace {

// The nest's tile emitted at the insertion point.
void emitTileHere(CodegenContext &cg, const ContractionNest &nest, const std::optional<TileStart> &start) {
  auto &b = cg.b;
  ScalarType dtype = nest.store->tensor->dtype;
  TileEmitter e{cg, nest, chooseRegisterTile(nest, cg.target), cg.memType(dtype), nullptr,
                llvm::Align(ir::scalarTypeBytes(dtype)), nullptr, false, {}, {}, nullptr};
  e.vecTy = llvm::FixedVectorType::get(e.elem, e.tile.lanes);
  if (start && !start->conditional()) {
    e.init = start->cases[0].value;
    e.initStreams = start->cases[0].stream;
  } else if (start) {
    e.start = *start;
    for (const TileStart::Case &c : start->cases) {
      e.caseHolds.push_back(c.cond ? lowerExprAs(cg, c.cond, ScalarType::Bool) : nullptr);
      llvm::Value *holds = c.cond ? e.caseHolds.back() : b.getTrue();
      if (c.stream) e.streamedCase = e.streamedCase ? b.CreateOr(e.streamedCase, holds) : holds;
    }
  }

  llvm::Value *jBegin = lowerExprAs(cg, nest.vecLoop->min, ScalarType::I64);
  llvm::Value *jExtent = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, lowerExprAs(cg, nest.vecLoop->extent, ScalarType::I64),
                                                 b.getInt64(0));
  llvm::Value *jEnd = b.CreateAdd(jBegin, jExtent);
  // The store's guard may end the columns earlier (the edge tile of a
  // panel padded to the tile's width: N = 15 in a 64-wide tile). Past that
  // end nothing is stored, so the tile stops there and runs the columns
  // left one vector at a time (TileEmitter::columns, with the
  // measurements) instead of every vector of the block under a mask.
  Expr extent = nest.vecLoop->extent;
  std::vector<std::string> unbound;
  for (const ir::LStmt *k : nest.kLoops) unbound.push_back(k->var);
  if (nest.rowLoop) unbound.push_back(nest.rowLoop->var);
  if (llvm::Value *end = emitLaneEnd(cg, nest.store->pred, nest.vecLoop->var, unbound)) {
    jEnd = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, jEnd, b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, end, jBegin));
    extent = nullptr;
  }
  llvm::Value *rowBase = nest.rowLoop ? lowerExprAs(cg, nest.rowLoop->min, ScalarType::I64) : nullptr;
  int64_t perBlock = e.tile.rowsPerBlock, whole = nest.rows / perBlock;
  auto blockAt = [&](llvm::Value *r0, int64_t rows) {
    e.columns(rowBase ? b.CreateAdd(rowBase, r0) : nullptr, rows, jBegin, jEnd, extent);
  };
  // Up to kMaxUnrolledBlocks row blocks are emitted one after another; a
  // taller tile loops over its whole blocks at run time, so its code does
  // not grow with its rows.
  if (whole > kMaxUnrolledBlocks) {
    cg.emitLoop(b.getInt64(0), b.getInt64(whole), "tile.rows", {},
                [&](llvm::Value *blk) { blockAt(b.CreateMul(blk, b.getInt64(perBlock)), perBlock); });
    if (nest.rows % perBlock) blockAt(b.getInt64(whole * perBlock), nest.rows % perBlock);
    return;
  }
  for (int64_t r0 = 0; r0 < nest.rows; r0 += perBlock) blockAt(b.getInt64(r0), std::min(perBlock, nest.rows - r0));
}

// Whether the nest is a multiply-add tile (the one whose operand streams
// need the general-purpose registers that spilled), its reduction runs long
// enough (a runtime extent, or at least kMinOutlinedSteps steps) to pay for
// a call, and its tile lives in memory anyway (a `register` tile stays in
// the caller's registers). Window reductions (pooling: T max= X over a
// kernel x kernel window of runtime extent) stay inline: outlined, max and
// avg pooling ran 7% slower (tk_bench, 8x64x112x112 3x3 s2, 2 threads).
bool outlines(const ContractionNest &nest) {
  if (!nest.bcast || nest.store->tensor->scope == ir::Scope::Register) return false;
  int64_t steps = 1;
  for (const ir::LStmt *k : nest.kLoops) {
    int64_t extent = 0;
    if (!ir::isConstInt(k->extent, &extent)) return true;
    steps *= std::max<int64_t>(extent, 0);
    if (steps >= kMinOutlinedSteps) return true;
  }
  return false;
}

} // namespace

// Inline, the tile shares its function with everything around it: a
// constructed matmul's worker body holds nine tile variants (first k block
// or not, streamed or not, edges), and LICM hoists each one's invariant
// addresses out of the enclosing loops, so ~150 general-purpose values were
// live across every hot loop. The register allocator then had to keep some
// in the stack, and which ones depended on tie-breaks: with the tile sizes
// of a 32 KiB L1 it reloaded the packed-A base inside the FMA loop. In a
// function of its own the hot loop only competes with the tile's own
// values, whatever loops the cache tiling builds around it.
void emitRegisterTile(CodegenContext &cg, const ContractionNest &nest, const std::optional<TileStart> &start) {
  if (!outlines(nest)) return emitTileHere(cg, nest, start);
  std::vector<Expr> conditions;
  if (start)
    for (const TileStart::Case &c : start->cases) conditions.push_back(c.cond);
  emitOutlinedCall(cg, "tile", *nest.kLoop, [&] { emitTileHere(cg, nest, start); }, conditions);
}

} // namespace tk::x86
