#include "backends/x86/EmitVectorMath.h"

#include <llvm/IR/Intrinsics.h>

#include <initializer_list>
#include <limits>

namespace tk::x86 {

namespace {

// Arithmetic on one f32 value (scalar or vector) and its same-shaped i32.
struct F32Ops {
  llvm::IRBuilderBase &b;
  llvm::Type *ft;
  llvm::Type *it;

  F32Ops(llvm::IRBuilderBase &builder, llvm::Value *x)
      : b(builder), ft(x->getType()), it(x->getType()->getWithNewType(builder.getInt32Ty())) {}

  llvm::Value *c(double v) const { return llvm::ConstantFP::get(ft, v); }
  llvm::Value *ci(int64_t v) const { return llvm::ConstantInt::get(it, v); }
  // a * m + add in one rounding where the target has FMA.
  llvm::Value *fma(llvm::Value *a, llvm::Value *m, llvm::Value *add) const {
    return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {ft}, {a, m, add});
  }
  // The polynomial with `coef` (highest degree first) at t, by Horner's rule.
  llvm::Value *poly(llvm::Value *t, std::initializer_list<double> coef) const {
    const double *k = coef.begin();
    llvm::Value *p = c(*k);
    for (++k; k != coef.end(); ++k) p = fma(p, t, c(*k));
    return p;
  }
  llvm::Value *unary(llvm::Intrinsic::ID id, llvm::Value *x) const { return b.CreateUnaryIntrinsic(id, x); }
};

constexpr double kInf = std::numeric_limits<double>::infinity();

} // namespace

llvm::Value *emitExpF32(llvm::IRBuilderBase &b, llvm::Value *x) {
  F32Ops o(b, x);
  // ln(FLT_MAX) and ln(FLT_MIN): outside, the result is inf or 0.
  const double hi = 88.72283935546875, lo = -87.33654022216797;
  llvm::Value *xc = b.CreateSelect(b.CreateFCmpOGT(x, o.c(hi)), o.c(hi), x);
  xc = b.CreateSelect(b.CreateFCmpOLT(xc, o.c(lo)), o.c(lo), xc);
  // n = round(x / ln2), in [-126, 128] after the clamp; r = x - n ln2 with ln2 split in two so that n*ln2_hi
  // is exact (ln2_hi has 9 significant bits).
  llvm::Value *n = o.unary(llvm::Intrinsic::floor, o.fma(xc, o.c(1.44269504088896341), o.c(0.5)));
  llvm::Value *r = o.fma(n, o.c(-0.693359375), xc);
  r = o.fma(n, o.c(2.12194440e-4), r);
  // e^r ~ 1 + r + r^2 p(r), minimax coefficients on [-ln2/2, ln2/2].
  llvm::Value *p = o.poly(r, {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                              1.6666665459e-1, 5.0000001201e-1});
  p = b.CreateFAdd(o.fma(p, b.CreateFMul(r, r), r), o.c(1.0));
  // 2^n for n in [-126, 128] from exponent bits n + 127, which must stay
  // within 1..254: n = 128 (x just below ln(FLT_MAX)) scales p by 2 first.
  llvm::Value *top = b.CreateFCmpOGT(n, o.c(127.0));
  p = b.CreateFMul(p, b.CreateSelect(top, o.c(2.0), o.c(1.0)));
  n = b.CreateSelect(top, o.c(127.0), n);
  llvm::Value *bits = b.CreateShl(b.CreateAdd(b.CreateFPToSI(n, o.it), o.ci(127)), 23);
  llvm::Value *y = b.CreateFMul(p, b.CreateBitCast(bits, o.ft));
  y = b.CreateSelect(b.CreateFCmpOGT(x, o.c(hi)), o.c(kInf), y);
  y = b.CreateSelect(b.CreateFCmpOLT(x, o.c(lo)), o.c(0.0), y);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);
}

llvm::Value *emitLogF32(llvm::IRBuilderBase &b, llvm::Value *x) {
  F32Ops o(b, x);
  // Subnormals get a normal exponent field first: x 2^23, e - 23.
  llvm::Value *sub = b.CreateFCmpOLT(x, o.c(0x1p-126));
  llvm::Value *xs = b.CreateSelect(sub, b.CreateFMul(x, o.c(0x1p23)), x);
  // Subtracting the bits of sqrt(1/2) (0x3f3504f3) carries into the
  // exponent field exactly when the significand is below sqrt(1/2) times
  // its binade, so that m = 2^-e x lands in [sqrt(1/2), sqrt(2)) and
  // f = m - 1 is exact (Sterbenz) and in [-0.293, 0.415).
  const int64_t sqrtHalf = 0x3f3504f3;
  llvm::Value *t = b.CreateSub(b.CreateBitCast(xs, o.it), o.ci(sqrtHalf));
  llvm::Value *e = b.CreateAdd(b.CreateAShr(t, 23), b.CreateSelect(sub, o.ci(-23), o.ci(0)));
  llvm::Value *m = b.CreateBitCast(b.CreateAdd(b.CreateAnd(t, o.ci(0x7fffff)), o.ci(sqrtHalf)), o.ft);
  llvm::Value *f = b.CreateFSub(m, o.c(1.0));
  // log(1 + f) = f + f^2 q(f), q minimax for relative error on that range.
  llvm::Value *q = o.poly(f, {-7.644996047e-02, 1.292194426e-01, -1.324271560e-01, 1.417925507e-01,
                              -1.660879552e-01, 2.000208795e-01, -2.500159740e-01, 3.333332539e-01,
                              -4.999998808e-01});
  // log x = e ln2_hi + (f + e ln2_lo + f^2 q): e ln2_hi is exact (ln2_hi
  // has 9 significant bits), so the small terms are summed first.
  llvm::Value *fe = b.CreateSIToFP(e, o.ft);
  llvm::Value *s = o.fma(b.CreateFMul(f, f), q, o.fma(fe, o.c(-2.12194440e-4), f));
  llvm::Value *y = o.fma(fe, o.c(0.693359375), s);
  y = b.CreateSelect(b.CreateFCmpOEQ(x, o.c(kInf)), x, y);
  y = b.CreateSelect(b.CreateFCmpOEQ(x, o.c(0.0)), o.c(-kInf), y);
  y = b.CreateSelect(b.CreateFCmpOLT(x, o.c(0.0)), o.c(std::numeric_limits<double>::quiet_NaN()), y);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);
}

llvm::Value *emitTanhF32(llvm::IRBuilderBase &b, llvm::Value *x) {
  F32Ops o(b, x);
  llvm::Value *a = o.unary(llvm::Intrinsic::fabs, x);
  // Near 0: tanh x = x + x^3 p(x^2), p minimax for relative error on
  // |x| < 0.875 (exact for tiny and subnormal x).
  llvm::Value *s = b.CreateFMul(x, x);
  llvm::Value *p = o.poly(s, {-4.824165371e-04, 2.651005983e-03, -8.331936784e-03, 2.169604041e-02,
                              -5.393716693e-02, 1.333306581e-01, -3.333332539e-01});
  llvm::Value *near = o.fma(b.CreateFMul(x, s), p, x);
  // Elsewhere tanh |x| = 1 - 2 / (e^2|x| + 1) >= 0.70: no cancellation, and
  // e^2|x| = inf (|x| > 44.4, or inf) gives exactly 1. NaN flows through exp.
  llvm::Value *e2 = emitExpF32(b, b.CreateFAdd(a, a));
  llvm::Value *far = b.CreateFSub(o.c(1.0), b.CreateFDiv(o.c(2.0), b.CreateFAdd(e2, o.c(1.0))));
  // The sign of x on both (x + x^3 p at x = -0 would be +0).
  llvm::Value *y = b.CreateSelect(b.CreateFCmpOLT(a, o.c(0.875)), near, far);
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, y, x);
}

llvm::Value *emitErfF32(llvm::IRBuilderBase &b, llvm::Value *x) {
  F32Ops o(b, x);
  llvm::Value *a = o.unary(llvm::Intrinsic::fabs, x);
  // Near 0: erf x = x + x r(x^2), r minimax for relative error on |x| < 1.
  llvm::Value *s = b.CreateFMul(x, x);
  llvm::Value *r = o.poly(s, {7.853866555e-05, -8.010194870e-04, 5.188327748e-03, -2.685381286e-02,
                              1.128358543e-01, -3.761262596e-01, 1.283791661e-01});
  llvm::Value *near = o.fma(x, r, x);
  // Elsewhere erf |x| = 1 - e^(-x^2) g(|x|) with g(a) ~ erfc(a) e^(a^2), a
  // slowly varying function, minimax for absolute error of the result on
  // [1, 3.93] in u = a - 2.465. From a = 3.92 on, erf rounds to 1 in f32;
  // clamping a to 4 keeps g finite where e^(-x^2) is 0 (no 0 * inf).
  llvm::Value *u = b.CreateFSub(b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, a, o.c(4.0)), o.c(2.465));
  llvm::Value *g = o.poly(u, {1.068367492e-04, 1.951151644e-04, 4.917898914e-04, -7.697162218e-04,
                              2.427869011e-03, -8.463133126e-03, 2.578573860e-02, -7.611649483e-02,
                              2.134404480e-01});
  llvm::Value *em = emitExpF32(b, b.CreateFNeg(s));
  llvm::Value *far = o.fma(b.CreateFNeg(em), g, o.c(1.0));
  far = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, far, x);
  return b.CreateSelect(b.CreateFCmpOLT(a, o.c(1.0)), near, far);
}

} // namespace tk::x86
