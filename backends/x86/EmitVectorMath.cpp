#include "backends/x86/EmitVectorMath.h"

#include <llvm/IR/Intrinsics.h>

#include <limits>

namespace tk::x86 {

llvm::Value *emitExpF32(llvm::IRBuilderBase &b, llvm::Value *x) {
  llvm::Type *ft = x->getType();
  llvm::Type *it = ft->getWithNewType(b.getInt32Ty());
  auto c = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  // a * b + c in one rounding where the target has FMA: half the operations
  // of the polynomial, which bound softmax's exp pass per core.
  auto fma = [&](llvm::Value *a, llvm::Value *m, llvm::Value *add) {
    return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {ft}, {a, m, add});
  };
  // ln(FLT_MAX) and ln(FLT_MIN): outside, the result is inf or 0.
  const double hi = 88.72283935546875, lo = -87.33654022216797;
  llvm::Value *xc = b.CreateSelect(b.CreateFCmpOGT(x, c(hi)), c(hi), x);
  xc = b.CreateSelect(b.CreateFCmpOLT(xc, c(lo)), c(lo), xc);
  // n = round(x / ln2), in [-126, 128] after the clamp; r = x - n ln2 with ln2 split in two so that n*ln2_hi
  // is exact (ln2_hi has 9 significant bits).
  llvm::Value *n = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, fma(xc, c(1.44269504088896341), c(0.5)));
  llvm::Value *r = fma(n, c(-0.693359375), xc);
  r = fma(n, c(2.12194440e-4), r);
  // e^r ~ 1 + r + r^2 p(r), minimax coefficients on [-ln2/2, ln2/2].
  const double coef[] = {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3,
                         4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1};
  llvm::Value *p = c(coef[0]);
  for (int i = 1; i < 6; ++i) p = fma(p, r, c(coef[i]));
  llvm::Value *r2 = b.CreateFMul(r, r);
  p = b.CreateFAdd(fma(p, r2, r), c(1.0));
  // 2^n for n in [-126, 128] from exponent bits n + 127, which must stay
  // within 1..254: n = 128 (x just below ln(FLT_MAX)) scales p by 2 first.
  llvm::Value *top = b.CreateFCmpOGT(n, c(127.0));
  p = b.CreateFMul(p, b.CreateSelect(top, c(2.0), c(1.0)));
  n = b.CreateSelect(top, c(127.0), n);
  llvm::Value *bits = b.CreateShl(b.CreateAdd(b.CreateFPToSI(n, it), llvm::ConstantInt::get(it, 127)), 23);
  llvm::Value *y = b.CreateFMul(p, b.CreateBitCast(bits, ft));
  y = b.CreateSelect(b.CreateFCmpOGT(x, c(hi)), c(std::numeric_limits<double>::infinity()), y);
  y = b.CreateSelect(b.CreateFCmpOLT(x, c(lo)), c(0.0), y);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);
}

} // namespace tk::x86
