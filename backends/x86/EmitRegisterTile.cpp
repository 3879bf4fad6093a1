#include "backends/x86/EmitRegisterTile.h"

#include "backends/common/LowerExprToLLVM.h"
#include "backends/x86/CacheHints.h"
#include "backends/x86/EmitByteDot.h"
#include "backends/x86/LaneMask.h"
#include "backends/x86/OutlineCall.h"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace tk::x86 {

using codegen::lowerExprAs;
using ir::BinOp;
using ir::Expr;
using ir::ExprKind;
using ir::mentionsVar;
using ir::ScalarType;

// Lane masks of one block's vector operand kept live across a loop (AVX-512
// has k1..k7).
static constexpr int64_t kMaxMaskedVectors = 7;
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

// The conjuncts of `pred` that mention `var` and those that do not (null:
// none), in their original order.
std::pair<Expr, Expr> splitGuard(const Expr &pred, const std::string &var) {
  std::vector<Expr> terms, stack{pred};
  while (!stack.empty()) {
    Expr e = stack.back();
    stack.pop_back();
    if (!e) continue;
    if (e->kind == ExprKind::Binary && e->binOp == BinOp::And) {
      stack.push_back(e->args[1]);
      stack.push_back(e->args[0]);
    } else {
      terms.push_back(e);
    }
  }
  Expr with, without;
  for (const Expr &t : terms) {
    Expr &side = mentionsVar(t, var) ? with : without;
    side = ir::conjoin(side, t);
  }
  return {with, without};
}

struct TileEmitter {
  CodegenContext &cg;
  const ContractionNest &n;
  RegisterTile tile;
  llvm::Type *elem;
  llvm::FixedVectorType *vecTy;
  llvm::Align align;
  Expr init; // the accumulators' first value, one for every tile (null: see `start`)
  bool initStreams = false; // that initialisation's store is marked `stream`
  // A start that depends on conditions (TileStart::conditional): each
  // case's condition evaluated once before the tile (null: always), and
  // whether a streamed case holds. Empty without one.
  TileStart start;
  std::vector<llvm::Value *> caseHolds;
  llvm::Value *streamedCase = nullptr;

  llvm::IRBuilder<> &b() { return cg.b; }

  llvm::Value *iota() {
    std::vector<llvm::Constant *> c;
    for (int l = 0; l < tile.lanes; ++l) c.push_back(b().getInt64(l));
    return llvm::ConstantVector::get(c);
  }
  llvm::Value *splat(llvm::Value *v) { return b().CreateVectorSplat(tile.lanes, v); }
  llvm::Value *allTrue() { return llvm::Constant::getAllOnesValue(llvm::FixedVectorType::get(b().getInt1Ty(), tile.lanes)); }

  // Whether the vector operand moves with the row, so that each row loads
  // its own vectors instead of sharing the first row's.
  bool vecPerRow() const { return n.rowLoop && mentionsVar(n.vec, n.rowLoop->var); }

  // Lanes l where `pred` holds with the vector variable at its bound value
  // plus l (null pred: all lanes).
  llvm::Value *laneMask(const Expr &pred) { return emitLaneMask(cg, pred, n.vecLoop->var, tile.lanes); }

  // Folds operand vector y (times the splatted broadcast bc in a
  // contraction) into accumulator acc, as the nest's store does per element.
  llvm::Value *combine(llvm::Value *acc, llvm::Value *y, llvm::Value *bc) {
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
  llvm::Value *quadBroadcast() {
    return splat(b().CreateAlignedLoad(elem, address(*n.bcast->tensor, n.bcast->args), align));
  }

  // Address of t[indices] without `inbounds`: a fully masked vector of a
  // ragged tile may start past the end of its tensor and is never accessed.
  // A flattened pixel pair [e / S, e % S] is addressed as e (linearIndex).
  llvm::Value *address(const ir::TensorDecl &t, const std::vector<Expr> &indices) {
    return b().CreateGEP(cg.memType(t.dtype), cg.buffer(t), codegen::linearIndex(cg, t, indices), t.name + ".vaddr");
  }

  llvm::Value *padOf(const Expr &load) {
    return splat(load->pad ? lowerExprAs(cg, load->pad, load->tensor->dtype)
                           : llvm::Constant::getNullValue(elem));
  }

  llvm::Value *maskedLoad(const Expr &load, llvm::Value *tailMask) {
    llvm::Value *mask = b().CreateAnd(tailMask, laneMask(load->pred));
    return b().CreateMaskedLoad(vecTy, address(*load->tensor, load->args), align, mask, padOf(load));
  }

  // Runs `fn` with the row variable at row r and the vector variable at the
  // first lane of vector v (given the block's first column j0).
  template <typename F> void at(llvm::Value *row, llvm::Value *j0, int64_t v, F fn) {
    cg.pushScope();
    if (n.quadLoop) cg.bind(n.quadLoop->var, {b().getInt64(0), ScalarType::I64});
    if (n.rowLoop) cg.bind(n.rowLoop->var, {row, ScalarType::I64});
    cg.bind(n.vecLoop->var, {b().CreateAdd(j0, b().getInt64(v * tile.lanes)), ScalarType::I64});
    fn();
    cg.popScope();
  }

  // The innermost reduction loop for vectors [v0, v1) of the block's rows.
  // `inRange`: every operand access is known to be in range, so loads are
  // plain (unguarded, unmasked) and the loop body is one basic block.
  // `masks` (when non-null): the vector operand's lane masks, one per
  // vector, computed before the loop from the guard terms that do not
  // change in it; `loopGuard` holds the others (null: none), evaluated per
  // iteration (a blocked channel's `c + cb*kc < C`, which LLVM usually
  // proves from the loop bound).
  template <typename RowValue>
  void reductionLoop(int64_t rows, RowValue rowValue, llvm::Value *j0, int64_t v0, int64_t v1,
                     const std::vector<llvm::Value *> &tail, const std::vector<llvm::AllocaInst *> &acc,
                     int64_t vectors, bool inRange, const std::vector<llvm::Value *> *masks = nullptr,
                     const Expr &loopGuard = nullptr) {
    const ir::LStmt &k = *n.kLoops.back();
    ScalarType dtype = n.store->tensor->dtype;
    llvm::Value *kBegin = lowerExprAs(cg, k.min, ScalarType::I64);
    llvm::Value *kEnd = b().CreateAdd(kBegin, lowerExprAs(cg, k.extent, ScalarType::I64));
    Expr plainBcast = n.bcast ? ir::load(n.bcast->tensor, n.bcast->args) : nullptr;
    // The body already holds rows x vectors independent FMAs; unrolling k
    // on top would only add live pointers (and spill them).
    llvm::Metadata *noUnroll = llvm::MDNode::get(cg.ctx, {llvm::MDString::get(cg.ctx, "llvm.loop.unroll.disable")});
    cg.emitLoop(kBegin, kEnd, k.var, {noUnroll}, [&](llvm::Value *kv) {
      cg.pushScope();
      cg.bind(k.var, {kv, ScalarType::I64});
      for (const ir::LStmtPtr &p : n.prefetches) emitPrefetch(cg, *p);
      std::vector<llvm::Value *> shared(vectors, nullptr);
      for (int64_t r = 0; r < rows; ++r) {
        llvm::Value *bc = nullptr;
        if (n.quadLoop) at(rowValue(r), j0, 0, [&] { bc = quadBroadcast(); });
        else if (n.bcast) at(rowValue(r), j0, 0, [&] { bc = splat(lowerExprAs(cg, inRange ? plainBcast : n.bcast, dtype)); });
        for (int64_t v = v0; v < v1; ++v) {
          llvm::Value *y = vecPerRow() ? nullptr : shared[v];
          if (!y)
            at(rowValue(r), j0, v, [&] {
              if (inRange) y = b().CreateAlignedLoad(vecTy, address(*n.vec->tensor, n.vec->args), align);
              else if (masks)
                y = b().CreateMaskedLoad(vecTy, address(*n.vec->tensor, n.vec->args), align,
                                         loopGuard ? b().CreateAnd((*masks)[v], laneMask(loopGuard)) : (*masks)[v],
                                         padOf(n.vec));
              else y = maskedLoad(n.vec, tail[v]);
            });
          if (!vecPerRow()) shared[v] = y;
          llvm::AllocaInst *slot = acc[r * vectors + v];
          b().CreateStore(combine(b().CreateLoad(vecTy, slot), y, bc), slot);
        }
      }
      cg.popScope();
    });
  }

  // One register block: `rows` rows from rowBase, `vectors` vectors from
  // column j0. `partial`: the block may reach past jEnd (its lanes there are
  // masked); otherwise it is known to end at or before jEnd.
  void block(llvm::Value *rowBase, int64_t rows, llvm::Value *j0, llvm::Value *jEnd, int64_t vectors, bool partial) {
    const ir::LStmt &st = *n.store;
    std::vector<llvm::Value *> tail;
    for (int64_t v = 0; v < vectors; ++v) {
      llvm::Value *first = b().CreateAdd(j0, b().getInt64(v * tile.lanes));
      tail.push_back(partial ? b().CreateICmpSLT(b().CreateAdd(splat(first), iota()), splat(jEnd)) : allTrue());
    }
    auto rowValue = [&](int64_t r) { return rowBase ? b().CreateAdd(rowBase, b().getInt64(r)) : nullptr; };
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
        at(rowValue(r), j0, v, [&] {
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
          for (int64_t v = 0; v < vectors; ++v) at(rowValue(r), j0, v, [&] { prefetchLine(v); });
      });

    // The outer reduction loops (a convolution's window) just run; the
    // accumulators stay in registers across them.
    withOuterReductionLoops(0, [&] { innermost(rows, rowValue, j0, tail, acc, vectors); });

    if (caseHolds.empty()) return finish(rows, rowValue, j0, tail, acc, vectors, deferred, stream, nullptr);
    // The one case that holds, or T's elements added when none does.
    std::function<void(size_t)> pick = [&](size_t i) {
      if (i == start.cases.size()) return finish(rows, rowValue, j0, tail, acc, vectors, true, false, nullptr);
      const TileStart::Case &c = start.cases[i];
      auto here = [&] { finish(rows, rowValue, j0, tail, acc, vectors, false, c.stream || st.stream, c.value); };
      if (!caseHolds[i]) return here();
      emitIfElse(caseHolds[i], here, [&] { pick(i + 1); });
    };
    pick(0);
  }

  // The block's stores after its loop: each accumulator plus T's element
  // (`deferred`) or plus `offset` (a conditional start's constant; null or
  // zero: nothing), streamed or not.
  template <typename RowValue>
  void finish(int64_t rows, RowValue rowValue, llvm::Value *j0, const std::vector<llvm::Value *> &tail,
              const std::vector<llvm::AllocaInst *> &acc, int64_t vectors, bool deferred, bool stream, const Expr &offset) {
    const ir::LStmt &st = *n.store;
    // Accumulators from zero plus a zero offset are the tile's sums already.
    bool adds = offset && !((offset->kind == ExprKind::FloatImm && offset->floatValue == 0) ||
                            (offset->kind == ExprKind::IntImm && offset->intValue == 0));
    std::vector<TileResult> results;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v)
        at(rowValue(r), j0, v, [&] {
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

  // Runs `fn` inside the reduction loops kLoops[level .. size - 2], each
  // variable bound in `cg`.
  void withOuterReductionLoops(size_t level, const std::function<void()> &fn) {
    if (level + 1 >= n.kLoops.size()) return fn();
    const ir::LStmt &k = *n.kLoops[level];
    llvm::Value *begin = lowerExprAs(cg, k.min, ScalarType::I64);
    llvm::Value *end = b().CreateAdd(begin, lowerExprAs(cg, k.extent, ScalarType::I64));
    llvm::Metadata *noUnroll = llvm::MDNode::get(cg.ctx, {llvm::MDString::get(cg.ctx, "llvm.loop.unroll.disable")});
    cg.emitLoop(begin, end, k.var, {noUnroll}, [&](llvm::Value *kv) {
      cg.pushScope();
      cg.bind(k.var, {kv, ScalarType::I64});
      withOuterReductionLoops(level + 1, fn);
      cg.popScope();
    });
  }

  // Whether a block of `vectors` vectors whose guards fail somewhere runs
  // whole with lane masks (see innermost) rather than a column at a time.
  bool runsMasked(int64_t vectors) {
    const std::string &k = n.kLoops.back()->var;
    return n.kLoops.size() > 1 && cg.target.vectorRegisters == 32 && !vecPerRow() &&
           vectors <= kMaxMaskedVectors && !mentionsVar(n.bcast ? n.bcast->pred : nullptr, k);
  }

  // The innermost reduction loop of one block. Unswitching: one test before
  // the loop shows whether the whole block is in range — its guards ignore
  // the loop's variable, or are affine in it (a pooling window's
  // `0 <= x + s - pad < W` along s), and then hold over the whole loop if
  // they hold at its first and last iteration. Such blocks (all but the
  // ragged edges) run a loop of plain loads without branches. Edge blocks
  // run one vector column at a time, so that their lane masks (k registers,
  // or vector registers before AVX-512) stay few — except under outer
  // reduction loops with AVX-512: there the guards change with the outer
  // variables (a convolution's padding), nearly every block is an edge at
  // some window position, and the whole block runs with its masks (at most
  // kMaxMaskedVectors, in k registers) computed before the loop; guard
  // terms of the vector operand that do mention the innermost variable are
  // then applied per iteration.
  template <typename RowValue>
  void innermost(int64_t rows, RowValue rowValue, llvm::Value *j0, const std::vector<llvm::Value *> &tail,
                 const std::vector<llvm::AllocaInst *> &acc, int64_t vectors) {
    const ir::LStmt &kLoop = *n.kLoops.back();
    const std::string &k = kLoop.var;
    const Expr bcastPred = n.bcast ? n.bcast->pred : nullptr;
    auto edge = [&] {
      for (int64_t v = 0; v < vectors; ++v) reductionLoop(rows, rowValue, j0, v, v + 1, tail, acc, vectors, false);
    };
    bool maskedBlock = runsMasked(vectors);
    bool kGuarded = mentionsVar(bcastPred, k) || mentionsVar(n.vec->pred, k);
    bool kAffine = affineIn(bcastPred, k) && affineIn(n.vec->pred, k);
    if (kGuarded && !maskedBlock && !kAffine) return edge();
    auto [loopGuard, fixedGuard] = splitGuard(n.vec->pred, k);
    llvm::Value *inRange = b().getTrue();
    std::vector<llvm::Value *> masks(vectors, nullptr);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v)
        at(rowValue(r), j0, v, [&] {
          if (v == 0 && bcastPred && !mentionsVar(bcastPred, k))
            inRange = b().CreateAnd(inRange, lowerExprAs(cg, bcastPred, ScalarType::Bool));
          if (r == 0 || vecPerRow()) {
            masks[v] = b().CreateAnd(tail[v], laneMask(fixedGuard));
            inRange = b().CreateAnd(inRange, b().CreateAndReduce(masks[v]));
          }
        });
    auto masked = [&] { reductionLoop(rows, rowValue, j0, 0, vectors, tail, acc, vectors, false, &masks, loopGuard); };
    if (kGuarded && !kAffine) return masked();
    if (kGuarded) {
      llvm::Value *first = lowerExprAs(cg, kLoop.min, ScalarType::I64);
      llvm::Value *last = b().CreateSub(b().CreateAdd(first, lowerExprAs(cg, kLoop.extent, ScalarType::I64)), b().getInt64(1));
      for (llvm::Value *kv : {first, last}) {
        cg.pushScope();
        cg.bind(k, {kv, ScalarType::I64});
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t v = 0; v < vectors; ++v)
            at(rowValue(r), j0, v, [&] {
              if (v == 0 && mentionsVar(bcastPred, k))
                inRange = b().CreateAnd(inRange, lowerExprAs(cg, bcastPred, ScalarType::Bool));
              if ((r == 0 || vecPerRow()) && loopGuard)
                inRange = b().CreateAnd(inRange, b().CreateAndReduce(laneMask(loopGuard)));
            });
        cg.popScope();
      }
    }
    emitIfElse(inRange, [&] { reductionLoop(rows, rowValue, j0, 0, vectors, tail, acc, vectors, true); }, [&] {
      if (maskedBlock) masked();
      else edge();
    });
  }

  template <typename Then, typename Else> void emitIfElse(llvm::Value *cond, Then thenFn, Else elseFn) {
    llvm::BasicBlock *thenBB = cg.newBlock("tile.then");
    llvm::BasicBlock *elseBB = cg.newBlock("tile.else");
    llvm::BasicBlock *done = cg.newBlock("tile.done");
    b().CreateCondBr(cond, thenBB, elseBB);
    b().SetInsertPoint(thenBB);
    thenFn();
    b().CreateBr(done);
    b().SetInsertPoint(elseBB);
    elseFn();
    b().CreateBr(done);
    b().SetInsertPoint(done);
  }

  // Columns [jBegin, jEnd) of `rows` rows: full blocks of the widest tile,
  // then the remainder in blocks of 2^m vectors (each full, so unmasked in
  // the hot loop), then at most one masked vector. A remainder run as one
  // wider masked block instead (four interleaved chains for a 56-wide
  // pooling row of 3.5 vectors) measured slower: 64 channels of 3 x 3
  // average pooling, medians of 8 alternating runs, 0.208 ms this way
  // against 0.253 with blocks up to 2 and 0.259 up to 4 vectors at 56^2,
  // 0.55 against 0.55 and 0.82 at 112^2, and 4% more text.
  void columns(llvm::Value *rowBase, int64_t rows, llvm::Value *jBegin, llvm::Value *jEnd, const Expr &extentExpr) {
    int64_t widest = tile.vectorsPerRow, extent = 0;
    if (ir::isConstInt(extentExpr, &extent) && extent <= widest * tile.lanes) {
      int64_t full = std::max<int64_t>(extent, 0) / tile.lanes;
      if (full > 0) block(rowBase, rows, jBegin, jEnd, full, false);
      if (extent > full * tile.lanes)
        block(rowBase, rows, b().CreateAdd(jBegin, b().getInt64(full * tile.lanes)), jEnd, 1, true);
      return;
    }
    llvm::Value *width = b().getInt64(widest * tile.lanes);
    llvm::Value *blocks = b().CreateSDiv(b().CreateSub(jEnd, jBegin), width);
    cg.emitLoop(b().getInt64(0), blocks, n.vecLoop->var + ".blk", {}, [&](llvm::Value *blk) {
      block(rowBase, rows, b().CreateAdd(jBegin, b().CreateMul(blk, width)), jEnd, widest, false);
    });
    llvm::AllocaInst *pos = cg.entryAlloca(b().getInt64Ty(), "tile.col");
    b().CreateStore(b().CreateAdd(jBegin, b().CreateMul(blocks, width)), pos);
    auto rest = [&] { return b().CreateSub(jEnd, b().CreateLoad(b().getInt64Ty(), pos)); };
    auto lanes = [&](int64_t vectors) { return b().getInt64(vectors * tile.lanes); };
    auto when = [&](llvm::Value *cond, const std::function<void()> &fn) { emitIfElse(cond, fn, [] {}); };
    // The rest is below `widest` vectors: full blocks of w vectors, w from
    // the largest power of two below `widest` down to 1, leave less than
    // one vector, masked past jEnd.
    int64_t w = 1;
    while (w * 2 < widest) w *= 2;
    for (; w >= 1; w /= 2)
      when(b().CreateICmpSGE(rest(), lanes(w)), [&] {
        llvm::Value *j = b().CreateLoad(b().getInt64Ty(), pos);
        block(rowBase, rows, j, jEnd, w, false);
        b().CreateStore(b().CreateAdd(j, lanes(w)), pos);
      });
    when(b().CreateICmpSGT(rest(), b().getInt64(0)),
         [&] { block(rowBase, rows, b().CreateLoad(b().getInt64Ty(), pos), jEnd, 1, true); });
  }
};

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
  llvm::Value *rowBase = nest.rowLoop ? lowerExprAs(cg, nest.rowLoop->min, ScalarType::I64) : nullptr;
  int64_t perBlock = e.tile.rowsPerBlock, whole = nest.rows / perBlock;
  auto blockAt = [&](llvm::Value *r0, int64_t rows) {
    e.columns(rowBase ? b.CreateAdd(rowBase, r0) : nullptr, rows, jBegin, jEnd, nest.vecLoop->extent);
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
