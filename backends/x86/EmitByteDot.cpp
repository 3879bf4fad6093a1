#include "backends/x86/EmitByteDot.h"

#include <llvm/IR/IntrinsicsX86.h>

namespace tk::x86 {

llvm::Value *emitByteDot(CodegenContext &cg, llvm::Value *acc, llvm::Value *quads, llvm::Value *broadcast, int lanes) {
  auto &b = cg.b;
  if (cg.target.byteDot && lanes == 16)
    return b.CreateIntrinsic(llvm::Intrinsic::x86_avx512_vpdpbusd_512, {}, {acc, quads, broadcast});
  auto splat = [&](int v) { return b.CreateVectorSplat(lanes, b.getInt32(v)); };
  for (int q = 0; q < 4; ++q) {
    llvm::Value *u = b.CreateAnd(b.CreateLShr(quads, splat(8 * q)), splat(255));
    llvm::Value *s = b.CreateAShr(b.CreateShl(broadcast, splat(24 - 8 * q)), splat(24));
    acc = b.CreateAdd(acc, b.CreateMul(u, s));
  }
  return acc;
}

} // namespace tk::x86
