#include "backends/x86/CacheHints.h"

#include "backends/common/LowerExprToLLVM.h"

#include <llvm/IR/IntrinsicsX86.h>

namespace tk::x86 {

namespace {

bool wholeVector(llvm::Value *mask) {
  auto *c = llvm::dyn_cast<llvm::Constant>(mask);
  return c && c->isAllOnesValue();
}

} // namespace

void emitStreamedTileStores(CodegenContext &cg, const std::vector<TileResult> &results, llvm::Align align) {
  auto &b = cg.b;
  auto masked = [&](const TileResult &r) { b.CreateMaskedStore(r.value, r.address, align, r.mask); };
  llvm::Value *misaligned = nullptr;
  uint64_t vecBytes = 0;
  for (const TileResult &r : results) {
    if (!wholeVector(r.mask)) continue;
    vecBytes = cg.mod.getDataLayout().getTypeStoreSize(r.value->getType());
    llvm::Value *low = b.CreateAnd(b.CreatePtrToInt(r.address, b.getInt64Ty()), b.getInt64(vecBytes - 1));
    misaligned = misaligned ? b.CreateOr(misaligned, low) : low;
  }
  if (!misaligned) {
    for (const TileResult &r : results) masked(r);
    return;
  }
  cg.streaming.insert(cg.frame().fn);
  llvm::BasicBlock *nt = cg.newBlock("tile.stream"), *plain = cg.newBlock("tile.cached"),
                   *done = cg.newBlock("tile.stored");
  b.CreateCondBr(b.CreateICmpEQ(misaligned, b.getInt64(0)), nt, plain);
  b.SetInsertPoint(nt);
  llvm::MDNode *nonTemporal = llvm::MDNode::get(cg.ctx, {llvm::ConstantAsMetadata::get(b.getInt32(1))});
  for (const TileResult &r : results) {
    if (!wholeVector(r.mask)) {
      masked(r);
      continue;
    }
    llvm::StoreInst *s = b.CreateAlignedStore(r.value, r.address, llvm::Align(vecBytes));
    s->setMetadata(llvm::LLVMContext::MD_nontemporal, nonTemporal);
  }
  b.CreateBr(done);
  b.SetInsertPoint(plain);
  for (const TileResult &r : results) masked(r);
  b.CreateBr(done);
  b.SetInsertPoint(done);
}

void emitStreamFence(CodegenContext &cg) {
  if (cg.streaming.count(cg.frame().fn)) cg.b.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {}, {});
}

void emitLinePrefetch(CodegenContext &cg, llvm::Value *addr, bool forWriting) {
  auto &b = cg.b;
  // llvm.prefetch(address, rw, locality 0..3, data cache)
  b.CreateIntrinsic(llvm::Intrinsic::prefetch, {b.getPtrTy()},
                    {addr, b.getInt32(forWriting ? 1 : 0), b.getInt32(forWriting ? 3 : 2), b.getInt32(1)});
}

void emitPrefetch(CodegenContext &cg, const ir::LStmt &s) {
  const ir::TensorDecl &t = *s.tensor;
  emitLinePrefetch(cg, cg.b.CreateGEP(cg.memType(t.dtype), cg.buffer(t), codegen::linearIndex(cg, t, s.indices), t.name + ".pf"),
                   false);
}

} // namespace tk::x86
