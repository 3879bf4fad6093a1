// Inline, vectorizable expansions of math functions. A call to libm (or an
// LLVM intrinsic that becomes one) stops the loop vectorizer: softmax's
// exp then runs one element at a time, far below memory bandwidth. These
// expansions are plain arithmetic and bit operations on the value's own
// type (f32 scalar or vector), so loops around them vectorize.
#pragma once
#include <llvm/IR/IRBuilder.h>

namespace tk::x86 {

// exp(x) for f32 (scalar or vector): Cody-Waite reduction x = n ln2 + r,
// |r| <= ln2/2, a degree-6 polynomial for e^r and the exponent bits for
// 2^n. Relative error below 2 ulp on [-87.3, 88.7]; +inf above ln(FLT_MAX),
// 0 below ln(FLT_MIN) (no subnormal results), NaN stays NaN.
llvm::Value *emitExpF32(llvm::IRBuilderBase &b, llvm::Value *x);

} // namespace tk::x86
