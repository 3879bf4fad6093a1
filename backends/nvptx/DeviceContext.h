// DeviceContext: translation state for NVPTX device code — the common
// CodegenContext plus GPU math and the thread/block index registers.
#pragma once
#include "backends/common/CodegenContext.h"

namespace tk::nvptx {

class DeviceContext : public codegen::CodegenContext {
public:
  using codegen::CodegenContext::CodegenContext;

  // threadIdx.x / blockIdx.x as i64 (launches are one-dimensional).
  llvm::Value *threadIndex();
  llvm::Value *blockIndex();
  // bar.sync 0: every thread of the block waits for the others.
  void emitBarrier();

  // Math without libdevice (docs/gpu.md gives the accuracy): sqrt and
  // rsqrt are IEEE (sqrt.rn, div.rn); exp, log, pow use the hardware's
  // ex2.approx / lg2.approx; tanh and erf are built from them and
  // polynomials. f64 arguments are computed in f32, except sqrt, rsqrt, abs.
  llvm::Value *emitMath(ir::MathFn f, llvm::Value *x) override;
  llvm::Value *emitPow(llvm::Value *a, llvm::Value *b) override;

private:
  llvm::Value *mathF32(ir::MathFn f, llvm::Value *x);
  llvm::Value *ex2(llvm::Value *x);
  llvm::Value *lg2(llvm::Value *x);
  llvm::Value *polynomial(llvm::Value *x, std::initializer_list<double> coefficients); // c0 + c1 x + ...
};

} // namespace tk::nvptx
