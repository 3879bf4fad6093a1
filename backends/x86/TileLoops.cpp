#include "backends/x86/TileEmitter.h"

#include "backends/common/LowerExprToLLVM.h"
#include "backends/x86/CacheHints.h"

#include <algorithm>

namespace tk::x86 {

using codegen::lowerExprAs;
using ir::Expr;
using ir::mentionsVar;
using ir::ScalarType;

// Lane masks of one block's vector operand kept live across a loop (AVX-512
// has k1..k7).
static constexpr int64_t kMaxMaskedVectors = 7;

namespace {

// The conjuncts of `pred` that mention `var` and those that do not (null:
// none), in their original order.
std::pair<Expr, Expr> splitGuard(const Expr &pred, const std::string &var) {
  std::vector<Expr> terms, stack{pred};
  while (!stack.empty()) {
    Expr e = stack.back();
    stack.pop_back();
    if (!e) continue;
    if (e->kind == ir::ExprKind::Binary && e->binOp == ir::BinOp::And) {
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

} // namespace

// Columns [jBegin, jEnd) of `rows` rows: full blocks of the widest tile,
// then the remainder in blocks of 2^m vectors (each full, so unmasked in
// the hot loop), then at most one masked vector. A remainder run as one
// wider masked block instead (four interleaved chains for a 56-wide
// pooling row of 3.5 vectors) measured slower: 64 channels of 3 x 3
// average pooling, medians of 8 alternating runs, 0.208 ms this way
// against 0.253 with blocks up to 2 and 0.259 up to 4 vectors at 56^2,
// 0.55 against 0.55 and 0.82 at 112^2, and 4% more text. A constant
// `extentExpr` of at most one block gives its blocks at compile time.
// A null one says jEnd comes from the store's guard, inside one block of
// an edge tile: its columns run one vector at a time, the last masked
// past jEnd. Measured against the whole block under the guard's masks
// and against passes of 2 vectors (2-core Zen 4, stdlib objects, medians
// of 5 alternating rounds of 21 calls): bmm 15 x 321 x 14 x 15 53.5 ->
// 16.6 us (2 vectors: 28.0), matmul 159 x 944 x 19 157 -> 87, 893 x 537
// x 93 678 -> 504, a 5 x 5 convolution over 47-wide rows 1053 -> 812 (2
// vectors: 1115), square and BERT shapes within 3%; text of linalg.tk 178
// -> 146 KB, nn.tk 215 -> 205 (the blocks of 2^m below took linalg to 262).
void TileEmitter::columns(llvm::Value *rowBase, int64_t rows, llvm::Value *jBegin, llvm::Value *jEnd, const Expr &extentExpr) {
  int64_t widest = tile.vectorsPerRow, extent = 0;
  if (!extentExpr) {
    llvm::Value *rest = b().CreateSub(jEnd, jBegin);
    llvm::Value *count = b().CreateSDiv(b().CreateAdd(rest, b().getInt64(tile.lanes - 1)), b().getInt64(tile.lanes));
    cg.emitLoop(b().getInt64(0), count, n.vecLoop->var + ".vec", {}, [&](llvm::Value *v) {
      block(rowBase, rows, b().CreateAdd(jBegin, b().CreateMul(v, b().getInt64(tile.lanes))), jEnd, 1, true);
    });
    return;
  }
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

// Runs `fn` inside the reduction loops kLoops[level .. size - 2], each
// variable bound in `cg`.
void TileEmitter::withOuterReductionLoops(size_t level, const std::function<void()> &fn) {
  if (level + 1 >= n.kLoops.size()) return fn();
  const ir::LStmt &k = *n.kLoops[level];
  llvm::Value *begin = lowerExprAs(cg, k.min, ScalarType::I64);
  llvm::Value *end = b().CreateAdd(begin, lowerExprAs(cg, k.extent, ScalarType::I64));
  cg.emitLoop(begin, end, k.var, {noUnroll()}, [&](llvm::Value *kv) {
    cg.pushScope();
    cg.bind(k.var, {kv, ScalarType::I64});
    withOuterReductionLoops(level + 1, fn);
    cg.popScope();
  });
}

// Whether a block of `vectors` vectors whose guards fail somewhere runs
// whole with lane masks (see innermost) rather than a column at a time.
bool TileEmitter::runsMasked(int64_t vectors) {
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
void TileEmitter::innermost(int64_t rows, llvm::Value *rowBase, llvm::Value *j0, const std::vector<llvm::Value *> &tail,
                            const std::vector<llvm::AllocaInst *> &acc, int64_t vectors) {
  const ir::LStmt &kLoop = *n.kLoops.back();
  const std::string &k = kLoop.var;
  const Expr bcastPred = n.bcast ? n.bcast->pred : nullptr;
  auto edge = [&] {
    for (int64_t v = 0; v < vectors; ++v) reductionLoop(rows, rowBase, j0, v, v + 1, tail, acc, vectors, false);
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
      at(rowAt(rowBase, r), j0, v, [&] {
        if (v == 0 && bcastPred && !mentionsVar(bcastPred, k))
          inRange = b().CreateAnd(inRange, lowerExprAs(cg, bcastPred, ScalarType::Bool));
        if (r == 0 || vecPerRow()) {
          masks[v] = b().CreateAnd(tail[v], laneMask(fixedGuard));
          inRange = b().CreateAnd(inRange, b().CreateAndReduce(masks[v]));
        }
      });
  auto masked = [&] { reductionLoop(rows, rowBase, j0, 0, vectors, tail, acc, vectors, false, &masks, loopGuard); };
  if (kGuarded && !kAffine) return masked();
  if (kGuarded) {
    llvm::Value *first = lowerExprAs(cg, kLoop.min, ScalarType::I64);
    llvm::Value *last = b().CreateSub(b().CreateAdd(first, lowerExprAs(cg, kLoop.extent, ScalarType::I64)), b().getInt64(1));
    for (llvm::Value *kv : {first, last}) {
      cg.pushScope();
      cg.bind(k, {kv, ScalarType::I64});
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t v = 0; v < vectors; ++v)
          at(rowAt(rowBase, r), j0, v, [&] {
            if (v == 0 && mentionsVar(bcastPred, k))
              inRange = b().CreateAnd(inRange, lowerExprAs(cg, bcastPred, ScalarType::Bool));
            if ((r == 0 || vecPerRow()) && loopGuard)
              inRange = b().CreateAnd(inRange, b().CreateAndReduce(laneMask(loopGuard)));
          });
      cg.popScope();
    }
  }
  emitIfElse(inRange, [&] { reductionLoop(rows, rowBase, j0, 0, vectors, tail, acc, vectors, true); }, [&] {
    if (maskedBlock) masked();
    else edge();
  });
}

// The innermost reduction loop for vectors [v0, v1) of the block's rows.
// `inRange`: every operand access is known to be in range, so loads are
// plain (unguarded, unmasked) and the loop body is one basic block.
// `masks` (when non-null): the vector operand's lane masks, one per
// vector, computed before the loop from the guard terms that do not
// change in it; `loopGuard` holds the others (null: none), evaluated per
// iteration (a blocked channel's `c + cb*kc < C`, which LLVM usually
// proves from the loop bound).
void TileEmitter::reductionLoop(int64_t rows, llvm::Value *rowBase, llvm::Value *j0, int64_t v0, int64_t v1,
                                const std::vector<llvm::Value *> &tail, const std::vector<llvm::AllocaInst *> &acc,
                                int64_t vectors, bool inRange, const std::vector<llvm::Value *> *masks,
                                const Expr &loopGuard) {
  const ir::LStmt &k = *n.kLoops.back();
  ScalarType dtype = n.store->tensor->dtype;
  llvm::Value *kBegin = lowerExprAs(cg, k.min, ScalarType::I64);
  llvm::Value *kEnd = b().CreateAdd(kBegin, lowerExprAs(cg, k.extent, ScalarType::I64));
  Expr plainBcast = n.bcast ? ir::load(n.bcast->tensor, n.bcast->args) : nullptr;
  cg.emitLoop(kBegin, kEnd, k.var, {noUnroll()}, [&](llvm::Value *kv) {
    cg.pushScope();
    cg.bind(k.var, {kv, ScalarType::I64});
    for (const ir::LStmtPtr &p : n.prefetches) emitPrefetch(cg, *p);
    std::vector<llvm::Value *> shared(vectors, nullptr);
    for (int64_t r = 0; r < rows; ++r) {
      llvm::Value *bc = nullptr;
      if (n.quadLoop) at(rowAt(rowBase, r), j0, 0, [&] { bc = quadBroadcast(); });
      else if (n.bcast) at(rowAt(rowBase, r), j0, 0, [&] { bc = splat(lowerExprAs(cg, inRange ? plainBcast : n.bcast, dtype)); });
      for (int64_t v = v0; v < v1; ++v) {
        llvm::Value *y = vecPerRow() ? nullptr : shared[v];
        if (!y)
          at(rowAt(rowBase, r), j0, v, [&] {
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

} // namespace tk::x86
