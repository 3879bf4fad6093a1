// TileEmitter: the code generator behind EmitRegisterTile.h, one nest's
// register tile at a time. Its state (the nest, the blocking, the start)
// and small helpers live here; its work is split by what it emits:
// TileEmitter.cpp one register block (operands, start, stores),
// TileLoops.cpp the loops around and inside the blocks (columns, the
// reduction loops and their unswitching). Internal to backends/x86.
#pragma once
#include "backends/x86/ChooseRegisterTile.h"
#include "backends/x86/CodegenContext.h"
#include "backends/x86/LaneMask.h"

#include <functional>
#include <vector>

namespace tk::x86 {

struct TileEmitter {
  CodegenContext &cg;
  const ContractionNest &n;
  RegisterTile tile;
  llvm::Type *elem;
  llvm::FixedVectorType *vecTy;
  llvm::Align align;
  ir::Expr init; // the accumulators' first value, one for every tile (null: see `start`)
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
  bool vecPerRow() const { return n.rowLoop && ir::mentionsVar(n.vec, n.rowLoop->var); }

  // Lanes l where `pred` holds with the vector variable at its bound value
  // plus l (null pred: all lanes).
  llvm::Value *laneMask(const ir::Expr &pred) { return emitLaneMask(cg, pred, n.vecLoop->var, tile.lanes); }

  // Loop metadata for the reduction loops: a block already holds rows x
  // vectors independent FMAs; unrolling k on top would only add live
  // pointers (and spill them).
  llvm::Metadata *noUnroll() {
    return llvm::MDNode::get(cg.ctx, {llvm::MDString::get(cg.ctx, "llvm.loop.unroll.disable")});
  }

  // Row r of a block whose first row is rowBase (null without a row loop).
  llvm::Value *rowAt(llvm::Value *rowBase, int64_t r) {
    return rowBase ? b().CreateAdd(rowBase, b().getInt64(r)) : nullptr;
  }

  // Runs `fn` with the row variable at row r and the vector variable at the
  // first lane of vector v (given the block's first column j0).
  template <typename F> void at(llvm::Value *row, llvm::Value *j0, int64_t v, F fn) {
    cg.pushScope();
    if (n.quadLoop) cg.bind(n.quadLoop->var, {b().getInt64(0), ir::ScalarType::I64});
    if (n.rowLoop) cg.bind(n.rowLoop->var, {row, ir::ScalarType::I64});
    cg.bind(n.vecLoop->var, {b().CreateAdd(j0, b().getInt64(v * tile.lanes)), ir::ScalarType::I64});
    fn();
    cg.popScope();
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

  // Operands (TileEmitter.cpp).
  llvm::Value *combine(llvm::Value *acc, llvm::Value *y, llvm::Value *bc);
  llvm::Value *quadBroadcast();
  llvm::Value *address(const ir::TensorDecl &t, const std::vector<ir::Expr> &indices);
  llvm::Value *padOf(const ir::Expr &load);
  llvm::Value *maskedLoad(const ir::Expr &load, llvm::Value *tailMask);

  // One block and its stores (TileEmitter.cpp).
  void block(llvm::Value *rowBase, int64_t rows, llvm::Value *j0, llvm::Value *jEnd, int64_t vectors, bool partial);
  void finish(int64_t rows, llvm::Value *rowBase, llvm::Value *j0, const std::vector<llvm::Value *> &tail,
              const std::vector<llvm::AllocaInst *> &acc, int64_t vectors, bool deferred, bool stream,
              const ir::Expr &offset);

  // Loops (TileLoops.cpp).
  void columns(llvm::Value *rowBase, int64_t rows, llvm::Value *jBegin, llvm::Value *jEnd, const ir::Expr &extentExpr);
  void withOuterReductionLoops(size_t level, const std::function<void()> &fn);
  bool runsMasked(int64_t vectors);
  void innermost(int64_t rows, llvm::Value *rowBase, llvm::Value *j0, const std::vector<llvm::Value *> &tail,
                 const std::vector<llvm::AllocaInst *> &acc, int64_t vectors);
  void reductionLoop(int64_t rows, llvm::Value *rowBase, llvm::Value *j0, int64_t v0, int64_t v1,
                     const std::vector<llvm::Value *> &tail, const std::vector<llvm::AllocaInst *> &acc,
                     int64_t vectors, bool inRange, const std::vector<llvm::Value *> *masks = nullptr,
                     const ir::Expr &loopGuard = nullptr);
};

} // namespace tk::x86
