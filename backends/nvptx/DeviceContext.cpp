#include "backends/nvptx/DeviceContext.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <cmath>

namespace tk::nvptx {

using ir::MathFn;

llvm::Value *DeviceContext::threadIndex() {
  return b.CreateZExt(b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {}), b.getInt64Ty(), "tid");
}

llvm::Value *DeviceContext::blockIndex() {
  return b.CreateZExt(b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {}, {}), b.getInt64Ty(), "bid");
}

llvm::Value *DeviceContext::linearBlockIndex() {
  namespace I = llvm::Intrinsic;
  auto sreg = [&](I::ID id) { return b.CreateZExt(b.CreateIntrinsic(id, {}, {}), b.getInt64Ty()); };
  llvm::Value *rows = b.CreateAdd(sreg(I::nvvm_read_ptx_sreg_ctaid_y),
                                  b.CreateMul(sreg(I::nvvm_read_ptx_sreg_nctaid_y), sreg(I::nvvm_read_ptx_sreg_ctaid_z)));
  return b.CreateAdd(blockIndex(), b.CreateMul(sreg(I::nvvm_read_ptx_sreg_nctaid_x), rows), "bid");
}

void DeviceContext::emitBarrier() { b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {}); }

llvm::Value *DeviceContext::ex2(llvm::Value *x) {
  return b.CreateIntrinsic(llvm::Intrinsic::nvvm_ex2_approx_f, {}, {x});
}

llvm::Value *DeviceContext::lg2(llvm::Value *x) {
  return b.CreateIntrinsic(llvm::Intrinsic::nvvm_lg2_approx_f, {}, {x});
}

llvm::Value *DeviceContext::polynomial(llvm::Value *x, std::initializer_list<double> coefficients) {
  // Horner, highest coefficient first.
  std::vector<double> c(coefficients);
  llvm::Value *acc = llvm::ConstantFP::get(x->getType(), c.back());
  for (size_t i = c.size() - 1; i-- > 0;)
    acc = b.CreateFAdd(b.CreateFMul(acc, x), llvm::ConstantFP::get(x->getType(), c[i]));
  return acc;
}

llvm::Value *DeviceContext::mathF32(MathFn f, llvm::Value *x) {
  auto *f32 = b.getFloatTy();
  auto c = [&](double v) { return llvm::ConstantFP::get(f32, v); };
  switch (f) {
  case MathFn::Exp: return ex2(b.CreateFMul(x, c(M_LOG2E)));
  case MathFn::Log: return b.CreateFMul(lg2(x), c(M_LN2));
  case MathFn::Tanh: {
    // |x| < 0.125: x (1 - x^2/3 + 2 x^4/15), relative error < 2e-7;
    // otherwise sign(x) (1 - e) / (1 + e) with e = exp(-2|x|), which
    // saturates to +-1 without overflow.
    llvm::Value *ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    llvm::Value *x2 = b.CreateFMul(x, x);
    llvm::Value *small = b.CreateFMul(x, polynomial(x2, {1.0, -1.0 / 3, 2.0 / 15}));
    llvm::Value *e = ex2(b.CreateFMul(ax, c(-2 * M_LOG2E)));
    llvm::Value *t = b.CreateFDiv(b.CreateFSub(c(1), e), b.CreateFAdd(c(1), e));
    llvm::Value *large = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, t, x);
    return b.CreateSelect(b.CreateFCmpOLT(ax, c(0.125)), small, large);
  }
  case MathFn::Erf: {
    // |x| < 0.5: Maclaurin series to x^11 (relative error < 3e-7);
    // otherwise Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7):
    // 1 - (a1 t + ... + a5 t^5) exp(-x^2), t = 1 / (1 + p |x|).
    llvm::Value *ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    llvm::Value *x2 = b.CreateFMul(x, x);
    double k = 2 / std::sqrt(M_PI);
    llvm::Value *small = b.CreateFMul(
        x, polynomial(x2, {k, -k / 3, k / 10, -k / 42, k / 216, -k / 1320}));
    llvm::Value *t = b.CreateFDiv(c(1), b.CreateFAdd(c(1), b.CreateFMul(c(0.3275911), ax)));
    llvm::Value *poly = b.CreateFMul(t, polynomial(t, {0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429}));
    llvm::Value *tail = b.CreateFSub(c(1), b.CreateFMul(poly, ex2(b.CreateFMul(x2, c(-M_LOG2E)))));
    llvm::Value *large = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, tail, x);
    return b.CreateSelect(b.CreateFCmpOLT(ax, c(0.5)), small, large);
  }
  default: break;
  }
  throw InternalError("nvptx backend: no f32 approximation for " + std::string(ir::mathFnName(f)));
}

llvm::Value *DeviceContext::emitMath(MathFn f, llvm::Value *x) {
  switch (f) {
  case MathFn::Sqrt: return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
  case MathFn::Rsqrt:
    return b.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0), b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
  case MathFn::Abs: return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  default: break;
  }
  if (x->getType()->isFloatTy()) return mathF32(f, x);
  return b.CreateFPExt(mathF32(f, b.CreateFPTrunc(x, b.getFloatTy())), x->getType());
}

llvm::Value *DeviceContext::emitPow(llvm::Value *a, llvm::Value *x) {
  // 2^(x lg2 a); pow(a, 0) = 1 for every a (also 0 and NaN), as in C.
  llvm::Type *type = a->getType();
  bool f64 = type->isDoubleTy();
  llvm::Value *a32 = f64 ? b.CreateFPTrunc(a, b.getFloatTy()) : a;
  llvm::Value *x32 = f64 ? b.CreateFPTrunc(x, b.getFloatTy()) : x;
  llvm::Value *r = ex2(b.CreateFMul(x32, lg2(a32)));
  r = b.CreateSelect(b.CreateFCmpOEQ(x32, llvm::ConstantFP::get(b.getFloatTy(), 0.0)),
                     llvm::ConstantFP::get(b.getFloatTy(), 1.0), r);
  return f64 ? b.CreateFPExt(r, type) : r;
}

llvm::Value *DeviceContext::emitShuffle(ir::ShuffleOp op, llvm::Value *value, llvm::Value *lane) {
  namespace I = llvm::Intrinsic;
  bool f32 = value->getType()->isFloatTy();
  if (!f32 && !value->getType()->isIntegerTy(32))
    throw InternalError("nvptx backend: warp shuffle of a value that is not f32 or i32");
  I::ID id = I::not_intrinsic;
  switch (op) {
  case ir::ShuffleOp::Xor: id = f32 ? I::nvvm_shfl_sync_bfly_f32 : I::nvvm_shfl_sync_bfly_i32; break;
  case ir::ShuffleOp::Down: id = f32 ? I::nvvm_shfl_sync_down_f32 : I::nvvm_shfl_sync_down_i32; break;
  case ir::ShuffleOp::Up: id = f32 ? I::nvvm_shfl_sync_up_f32 : I::nvvm_shfl_sync_up_i32; break;
  case ir::ShuffleOp::Idx: id = f32 ? I::nvvm_shfl_sync_idx_f32 : I::nvvm_shfl_sync_idx_i32; break;
  }
  // The c operand packs the segment mask (0: one 32-lane segment) and the
  // clamp lane: 31 for bfly/down/idx, 0 for up, so lanes whose source is
  // outside the warp keep their own value (the CUDA __shfl_*_sync rule).
  uint32_t c = op == ir::ShuffleOp::Up ? 0 : 0x1f;
  return b.CreateIntrinsic(id, {}, {b.getInt32(0xffffffffu), value, lane, b.getInt32(c)});
}

} // namespace tk::nvptx
