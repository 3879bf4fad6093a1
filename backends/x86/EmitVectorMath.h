// Inline, vectorizable expansions of f32 math functions. A call to libm (or
// an LLVM intrinsic that becomes one) stops the loop vectorizer: softmax's
// exp or GELU's erf then runs one element at a time, far below memory
// bandwidth. These expansions are plain arithmetic, selects and bit
// operations on the value's own type (f32 scalar or vector), without
// branches, so loops around them vectorize. The polynomials are minimax
// fits (Remez exchange) derived for this file; each is evaluated with
// llvm.fmuladd, one rounding per step on targets with FMA. The error bounds
// below were measured over every f32 input against libm in double precision
// (docs/abi.md "Math functions"); subnormal inputs are handled, and
// tests/unit/x86_vector_math.cpp checks the bounds.
#pragma once
#include <llvm/IR/IRBuilder.h>

namespace tk::x86 {

// exp(x): Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, a degree-6
// polynomial for e^r and the exponent bits for 2^n. Within 1.01 ulp on
// [-87.3, 88.7]; +inf above ln(FLT_MAX), 0 below ln(FLT_MIN) (no subnormal
// results), NaN stays NaN.
llvm::Value *emitExpF32(llvm::IRBuilderBase &b, llvm::Value *x);

// log(x): x = 2^e m with m in [sqrt(1/2), sqrt(2)) read from the bits
// (subnormals scaled by 2^23 first), log(1 + f) = f + f^2 q(f) with a
// degree-8 q, plus e ln2 in two parts. Within 0.92 ulp for every positive
// finite x; log(+-0) = -inf, log(+inf) = +inf, negative x and NaN give NaN.
llvm::Value *emitLogF32(llvm::IRBuilderBase &b, llvm::Value *x);

// tanh(x): |x| < 0.875: x + x^3 p(x^2) (degree 6); otherwise
// sign(x) (1 - 2 / (exp(2|x|) + 1)) with emitExpF32, which saturates to +-1
// (exactly, from |x| > 9.01 on, and for +-inf). Within 1.05 ulp; tanh(-0) =
// -0, NaN stays NaN.
llvm::Value *emitTanhF32(llvm::IRBuilderBase &b, llvm::Value *x);

// erf(x): |x| < 1: x + x r(x^2) (degree 6); otherwise
// sign(x) (1 - exp(-x^2) g(|x|)) with g ~ erfc(a) e^(a^2) a degree-8
// polynomial around a = 2.465 (a clamped to 4, where the result is 1 in
// f32). Within 1.18 ulp; erf(+-inf) = +-1, erf(-0) = -0, NaN stays NaN.
llvm::Value *emitErfF32(llvm::IRBuilderBase &b, llvm::Value *x);

} // namespace tk::x86
