#include "backends/x86/TileEmitter.h"

#include "backends/common/LowerExprToLLVM.h"
#include "backends/x86/CacheHints.h"
#include "backends/x86/EmitByteDot.h"

#include <llvm/IR/Intrinsics.h>

#include <cmath>

namespace tk::x86 {

using codegen::lowerExprAs;
using ir::BinOp;
using ir::Expr;
using ir::ExprKind;

// Folds operand vector y (times the splatted broadcast bc in a
// contraction) into accumulator acc, as the nest's store does per element.
llvm::Value *TileEmitter::combine(llvm::Value *acc, llvm::Value *y, llvm::Value *bc) {
  if (n.quadLoop) return emitByteDot(cg, acc, y, bc, tile.lanes);
  if (bc) return b().CreateIntrinsic(llvm::Intrinsic::fmuladd, {vecTy}, {bc, y, acc});
  // maxnum/minnum (NaN loses) take a compare, a max and a blend on x86.
  // Accumulators that start from a constant other than NaN never become
  // NaN, and then `y > acc ? y : acc` is the same value: one vmaxps,
  // which returns its second operand when either is NaN.
  if ((n.fold == BinOp::Max || n.fold == BinOp::Min) && init && !std::isnan(init->floatValue)) {
    llvm::Value *wins = n.fold == BinOp::Max ? b().CreateFCmpOGT(y, acc) : b().CreateFCmpOLT(y, acc);
    return b().CreateSelect(wins, y, acc);
  }
  return codegen::lowerArith(cg, n.fold, acc, y, n.store->tensor->dtype);
}

// The quad of the broadcast operand at the bound variables, as one i32
// in every lane.
llvm::Value *TileEmitter::quadBroadcast() {
  return splat(b().CreateAlignedLoad(elem, address(*n.bcast->tensor, n.bcast->args), align));
}

// Address of t[indices] without `inbounds`: a fully masked vector of a
// ragged tile may start past the end of its tensor and is never accessed.
// A flattened pixel pair [e / S, e % S] is addressed as e (linearIndex).
llvm::Value *TileEmitter::address(const ir::TensorDecl &t, const std::vector<Expr> &indices) {
  return b().CreateGEP(cg.memType(t.dtype), cg.buffer(t), codegen::linearIndex(cg, t, indices), t.name + ".vaddr");
}

llvm::Value *TileEmitter::padOf(const Expr &load) {
  return splat(load->pad ? lowerExprAs(cg, load->pad, load->tensor->dtype)
                         : llvm::Constant::getNullValue(elem));
}

llvm::Value *TileEmitter::maskedLoad(const Expr &load, llvm::Value *tailMask) {
  llvm::Value *mask = b().CreateAnd(tailMask, laneMask(load->pred));
  return b().CreateMaskedLoad(vecTy, address(*load->tensor, load->args), align, mask, padOf(load));
}

// One register block: `rows` rows from rowBase, `vectors` vectors from
// column j0. `partial`: the block may reach past jEnd (its lanes there are
// masked); otherwise it is known to end at or before jEnd.
void TileEmitter::block(llvm::Value *rowBase, int64_t rows, llvm::Value *j0, llvm::Value *jEnd, int64_t vectors, bool partial) {
  const ir::LStmt &st = *n.store;
  std::vector<llvm::Value *> tail;
  for (int64_t v = 0; v < vectors; ++v) {
    llvm::Value *first = b().CreateAdd(j0, b().getInt64(v * tile.lanes));
    tail.push_back(partial ? b().CreateICmpSLT(b().CreateAdd(splat(first), iota()), splat(jEnd)) : allTrue());
  }
  // A contraction's tile is prefetched (for writing) before its loop, so
  // that the final stores, and loads, hit L1 instead of stalling on a
  // miss each: +22% at 4096 x 64 x 4096 and +20% at 4096 x 4 x 1024,
  // whose tiles write C once (pooling sums measured the same either way).
  // A sum that continues T's elements (a later k block of the
  // constructed tiles) also starts from zero and adds them after the
  // loop, so the FMAs never wait for them (1-4% on one core at 1024^3).
  // A streamed tile is not prefetched: its stores bypass the caches, and
  // a line pulled in first would only be evicted by them.
  // A conditional start runs the tile from zero like a later block and
  // picks its stores after the loop (finish).
  bool deferred = !init && n.fold == BinOp::Add;
  bool stream = (st.stream || initStreams) && !deferred; // a conditional start is deferred
  bool prefetch = n.fold == BinOp::Add && n.bcast && !stream;
  int64_t bytes = ir::scalarTypeBytes(st.tensor->dtype);
  // One write prefetch per cache line of the tile's rows (at vector v of
  // the row bound by `at`).
  auto prefetchLine = [&](int64_t v) {
    if ((v * tile.lanes * bytes) % 64 == 0) emitLinePrefetch(cg, address(*st.tensor, st.indices), true);
  };
  std::vector<llvm::AllocaInst *> acc;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < vectors; ++v) {
      acc.push_back(cg.entryAlloca(vecTy, "acc.tile"));
      at(rowAt(rowBase, r), j0, v, [&] {
        // The mask comes first in every case, though only the load uses
        // it: emitted inside the load's branch, or after the address, it
        // changed register allocation so that the convolution tiles' hot
        // loops touched the stack (the tests/codegen no-spill tests).
        llvm::Value *mask = b().CreateAnd(tail[v], laneMask(st.pred));
        llvm::Value *start = nullptr;
        if (init) start = splat(lowerExprAs(cg, init, st.tensor->dtype));
        else if (deferred) start = llvm::Constant::getNullValue(vecTy);
        else start = b().CreateMaskedLoad(vecTy, address(*st.tensor, st.indices), align, mask, padOf(n.accLoad));
        if (prefetch && !streamedCase) prefetchLine(v);
        b().CreateStore(start, acc.back());
      });
    }
  if (prefetch && streamedCase)
    emitIfElse(streamedCase, [] {}, [&] {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t v = 0; v < vectors; ++v) at(rowAt(rowBase, r), j0, v, [&] { prefetchLine(v); });
    });

  // The outer reduction loops (a convolution's window) just run; the
  // accumulators stay in registers across them.
  withOuterReductionLoops(0, [&] { innermost(rows, rowBase, j0, tail, acc, vectors); });

  if (caseHolds.empty()) return finish(rows, rowBase, j0, tail, acc, vectors, deferred, stream, nullptr);
  // The one case that holds, or T's elements added when none does.
  std::function<void(size_t)> pick = [&](size_t i) {
    if (i == start.cases.size()) return finish(rows, rowBase, j0, tail, acc, vectors, true, false, nullptr);
    const TileStart::Case &c = start.cases[i];
    auto here = [&] { finish(rows, rowBase, j0, tail, acc, vectors, false, c.stream || st.stream, c.value); };
    if (!caseHolds[i]) return here();
    emitIfElse(caseHolds[i], here, [&] { pick(i + 1); });
  };
  pick(0);
}

// The block's stores after its loop: each accumulator plus T's element
// (`deferred`) or plus `offset` (a conditional start's constant; null or
// zero: nothing), streamed or not.
void TileEmitter::finish(int64_t rows, llvm::Value *rowBase, llvm::Value *j0, const std::vector<llvm::Value *> &tail,
                         const std::vector<llvm::AllocaInst *> &acc, int64_t vectors, bool deferred, bool stream,
                         const Expr &offset) {
  const ir::LStmt &st = *n.store;
  // Accumulators from zero plus a zero offset are the tile's sums already.
  bool adds = offset && !((offset->kind == ExprKind::FloatImm && offset->floatValue == 0) ||
                          (offset->kind == ExprKind::IntImm && offset->intValue == 0));
  std::vector<TileResult> results;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < vectors; ++v)
      at(rowAt(rowBase, r), j0, v, [&] {
        llvm::Value *mask = b().CreateAnd(tail[v], laneMask(st.pred));
        llvm::Value *sum = b().CreateLoad(vecTy, acc[r * vectors + v]);
        if (deferred)
          sum = codegen::lowerArith(cg, BinOp::Add,
                                    b().CreateMaskedLoad(vecTy, address(*st.tensor, st.indices), align, mask, padOf(n.accLoad)),
                                    sum, st.tensor->dtype);
        if (adds) sum = codegen::lowerArith(cg, BinOp::Add, sum, splat(lowerExprAs(cg, offset, st.tensor->dtype)), st.tensor->dtype);
        // Stored at once unless streamed: holding every address until a
        // joint alignment test changed register allocation so that the
        // convolution tiles spilled (tests/codegen no-spill tests).
        if (stream) results.push_back({sum, address(*st.tensor, st.indices), mask});
        else b().CreateMaskedStore(sum, address(*st.tensor, st.indices), align, mask);
      });
  if (stream) emitStreamedTileStores(cg, results, align);
}

} // namespace tk::x86
