#include "backends/nvptx/EmitGpuIntrinsic.h"

#include "backends/common/LowerExprToLLVM.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

namespace tk::nvptx {

namespace {

llvm::Value *address(DeviceContext &dc, const ir::Expr &operand) {
  return codegen::elementAddress(dc, *operand->tensor, operand->args);
}

// Fragments live in register tensors as consecutive 16-bit (or f32)
// elements; the hardware takes them as 32-bit registers, two halves each.
std::vector<llvm::Value *> loadWords(DeviceContext &dc, llvm::Value *addr, llvm::Type *type, unsigned n) {
  std::vector<llvm::Value *> out;
  for (unsigned i = 0; i < n; ++i)
    out.push_back(dc.b.CreateAlignedLoad(type, dc.b.CreateConstInBoundsGEP1_64(type, addr, i), llvm::Align(4)));
  return out;
}

void storeWords(DeviceContext &dc, llvm::Value *addr, llvm::Value *aggregate, llvm::Type *type, unsigned n) {
  for (unsigned i = 0; i < n; ++i) {
    llvm::Value *v = dc.b.CreateBitCast(dc.b.CreateExtractValue(aggregate, i), type);
    dc.b.CreateAlignedStore(v, dc.b.CreateConstInBoundsGEP1_64(type, addr, i), llvm::Align(4));
  }
}

// Calls `id`, bitcasting each argument to the declared parameter type (the
// f16 mma takes <2 x half> registers, the bf16 one i32). ldmatrix is
// overloaded on its pointer's address space: it gets the shared pointer's.
llvm::Value *call(DeviceContext &dc, llvm::Intrinsic::ID id, std::vector<llvm::Value *> args) {
  std::vector<llvm::Type *> overload;
  if (llvm::Intrinsic::isOverloaded(id)) overload.push_back(args[0]->getType());
  llvm::Function *fn = llvm::Intrinsic::getDeclaration(&dc.mod, id, overload);
  for (unsigned i = 0; i < args.size(); ++i) {
    llvm::Type *want = fn->getFunctionType()->getParamType(i);
    if (args[i]->getType() == want) continue;
    args[i] = want->isPointerTy() ? dc.b.CreateAddrSpaceCast(args[i], want) : dc.b.CreateBitCast(args[i], want);
  }
  return dc.b.CreateCall(fn, args);
}

// d += a * b for one m16n8k16 tile: a holds 8 halves (4 registers), b 4
// halves (2 registers), d 4 floats, in the PTX ISA's fragment layouts.
void emitMma(DeviceContext &dc, const ir::LStmt &s) {
  const ir::Expr &d = s.operands[0], &a = s.operands[1], &b = s.operands[2];
  llvm::Type *i32 = dc.b.getInt32Ty(), *f32 = dc.b.getFloatTy();
  llvm::Value *dAddr = address(dc, d);
  std::vector<llvm::Value *> args = loadWords(dc, address(dc, a), i32, 4);
  for (llvm::Value *w : loadWords(dc, address(dc, b), i32, 2)) args.push_back(w);
  for (llvm::Value *c : loadWords(dc, dAddr, f32, 4)) args.push_back(c);
  bool bf16 = a->tensor->dtype == ir::ScalarType::BF16;
  auto id = bf16 ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16 : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32;
  storeWords(dc, dAddr, call(dc, id, args), f32, 4);
}

// Each lane supplies the address of one 8-element row of an 8x8 matrix:
// x4 (an A fragment: the 16x16 tile at (r, c)) takes lanes 0-31 for the
// matrices at (r, c), (r+8, c), (r, c+8), (r+8, c+8) — the order of a0..a7;
// x2 (a B fragment from an n-major 8x16 tile) takes lanes 0-15 for (r, c)
// and (r, c+8), i.e. k 0-7 then k 8-15; x2.trans (a B fragment from a
// k-major 16x8 tile) takes lanes 0-15 for rows r..r+15 of column c, and the
// transposition hands each lane its column of k values.
void emitLdMatrix(DeviceContext &dc, const ir::LStmt &s, bool trans) {
  const ir::Expr &frag = s.operands[0], &tile = s.operands[1];
  int64_t len = 0, rowElems = 0;
  if (!ir::isConstInt(frag->tensor->shape.back(), &len) || !ir::isConstInt(tile->tensor->shape.back(), &rowElems))
    throw InternalError("nvptx backend: ldmatrix operand with a symbolic shape");
  auto &b = dc.b;
  llvm::Value *lane = b.CreateAnd(dc.threadIndex(), 31, "lane");
  bool x4 = len == 8;
  llvm::Value *row = x4 || trans ? b.CreateAnd(lane, 15) : b.CreateAnd(lane, 7);
  llvm::Value *col = trans ? b.getInt64(0)
                     : x4  ? b.CreateMul(b.CreateLShr(lane, 4), b.getInt64(8))
                           : b.CreateMul(b.CreateAnd(b.CreateLShr(lane, 3), 1), b.getInt64(8));
  llvm::Value *offset = b.CreateAdd(b.CreateMul(row, b.getInt64(rowElems)), col);
  llvm::Value *ptr = b.CreateInBoundsGEP(b.getInt16Ty(), address(dc, tile), offset, "ldmatrix.row");
  auto id = trans ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x2_trans_b16
            : x4  ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16
                  : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x2_b16;
  storeWords(dc, address(dc, frag), call(dc, id, {ptr}), b.getInt32Ty(), x4 ? 4 : 2);
}

// dst[e] = src[e] for e < n. The asynchronous copy needs the whole source
// inside its tensor and both addresses aligned to the copy size; otherwise
// this thread copies element by element, reading 0 past the tensor's end
// (as predicated loads do). Both paths are complete after cp_async_wait
// and a barrier, so kernels need not know which one ran.
void emitCpAsync(DeviceContext &dc, const ir::LStmt &s) {
  auto &b = dc.b;
  const ir::Expr &dst = s.operands[0], &src = s.operands[1];
  const ir::TensorDecl &g = *src->tensor;
  int64_t n = s.operands[2]->intValue, bytes = n * ir::scalarTypeBytes(g.dtype);
  llvm::Type *elem = dc.memType(g.dtype);
  llvm::Value *dstAddr = address(dc, dst), *srcAddr = address(dc, src);
  std::vector<llvm::Value *> idx, extent;
  for (size_t d = 0; d < g.rank(); ++d) {
    idx.push_back(codegen::lowerExprAs(dc, src->args[d], ir::ScalarType::I64));
    extent.push_back(codegen::lowerExprAs(dc, g.shape[d], ir::ScalarType::I64));
  }
  // Leading dimensions in range (unsigned compare also rejects negatives).
  llvm::Value *rowOk = b.getTrue();
  for (size_t d = 0; d + 1 < g.rank(); ++d) rowOk = b.CreateAnd(rowOk, b.CreateICmpULT(idx[d], extent[d]));
  llvm::Value *last = g.rank() ? idx.back() : b.getInt64(0), *lastExt = g.rank() ? extent.back() : b.getInt64(1);
  auto inRange = [&](int64_t e) { return b.CreateICmpULT(b.CreateAdd(last, b.getInt64(e)), lastExt); };
  llvm::Value *misaligned = b.CreateAnd(b.CreateOr(b.CreatePtrToInt(dstAddr, b.getInt64Ty()),
                                                   b.CreatePtrToInt(srcAddr, b.getInt64Ty())),
                                        b.getInt64(bytes - 1));
  llvm::Value *fast = b.CreateAnd(b.CreateAnd(rowOk, b.CreateAnd(inRange(0), inRange(n - 1))),
                                  b.CreateICmpEQ(misaligned, b.getInt64(0)), "cp.async.ok");
  llvm::BasicBlock *fastBB = dc.newBlock("cp.async"), *slowBB = dc.newBlock("cp.elementwise"),
                   *done = dc.newBlock("cp.done");
  b.CreateCondBr(fast, fastBB, slowBB);
  b.SetInsertPoint(fastBB);
  auto id = bytes == 4 ? llvm::Intrinsic::nvvm_cp_async_ca_shared_global_4
            : bytes == 8 ? llvm::Intrinsic::nvvm_cp_async_ca_shared_global_8
                         : llvm::Intrinsic::nvvm_cp_async_ca_shared_global_16;
  call(dc, id, {dstAddr, srcAddr});
  b.CreateBr(done);
  b.SetInsertPoint(slowBB);
  for (int64_t e = 0; e < n; ++e) {
    llvm::Value *to = b.CreateConstInBoundsGEP1_64(elem, dstAddr, e);
    b.CreateStore(llvm::Constant::getNullValue(elem), to);
    codegen::emitGuarded(dc, b.CreateAnd(rowOk, inRange(e)), "cp.elem", [&] {
      b.CreateStore(b.CreateLoad(elem, b.CreateConstInBoundsGEP1_64(elem, srcAddr, e)), to);
    });
  }
  b.CreateBr(done);
  b.SetInsertPoint(done);
}

// target += value as one relaxed atomic read-modify-write (CUDA's
// atomicAdd): atom/red.add.f32 or .s32 on global or shared memory (LLVM
// infers the state space from the buffer). An out-of-range element of an op
// tensor is skipped, as a predicated store is (PredicateAccesses set pred).
void emitAtomicAdd(DeviceContext &dc, const ir::LStmt &s) {
  const ir::Expr &target = s.operands[0];
  ir::ScalarType t = target->tensor->dtype;
  auto emit = [&] {
    llvm::Value *v = codegen::lowerExprAs(dc, s.operands[1], t);
    auto op = ir::isFloat(t) ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add;
    dc.b.CreateAtomicRMW(op, address(dc, target), v, llvm::MaybeAlign(ir::scalarTypeBytes(t)),
                         llvm::AtomicOrdering::Monotonic);
  };
  if (s.pred) codegen::emitGuarded(dc, codegen::lowerExprAs(dc, s.pred, ir::ScalarType::Bool), "atomic", emit);
  else emit();
}

} // namespace

void emitGpuIntrinsic(DeviceContext &dc, const ir::LStmt &s) {
  switch (s.intrinsic) {
  case ir::GpuIntrinsic::Mma: return emitMma(dc, s);
  case ir::GpuIntrinsic::LdMatrix: return emitLdMatrix(dc, s, false);
  case ir::GpuIntrinsic::LdMatrixTrans: return emitLdMatrix(dc, s, true);
  case ir::GpuIntrinsic::CpAsync: return emitCpAsync(dc, s);
  case ir::GpuIntrinsic::CpAsyncCommit: call(dc, llvm::Intrinsic::nvvm_cp_async_commit_group, {}); return;
  case ir::GpuIntrinsic::CpAsyncWait:
    call(dc, llvm::Intrinsic::nvvm_cp_async_wait_group, {dc.b.getInt32(static_cast<uint32_t>(s.operands[0]->intValue))});
    return;
  case ir::GpuIntrinsic::AtomicAdd: return emitAtomicAdd(dc, s);
  }
  throw InternalError("nvptx backend: unknown GPU statement");
}

} // namespace tk::nvptx
