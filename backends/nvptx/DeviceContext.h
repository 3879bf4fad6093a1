// DeviceContext: translation state for NVPTX device code — the common
// CodegenContext plus GPU math and the thread/block index registers.
#pragma once
#include "backends/common/CodegenContext.h"

namespace tk::nvptx {

class DeviceContext : public codegen::CodegenContext {
public:
  using codegen::CodegenContext::CodegenContext;

  // threadIdx.x / blockIdx.x as i64 (blocks are one-dimensional).
  llvm::Value *threadIndex();
  llvm::Value *blockIndex();
  // The linear block index of a grid that may use y and z:
  // blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z), i64.
  llvm::Value *linearBlockIndex();
  // bar.sync 0: every thread of the block waits for the others.
  void emitBarrier();
  // fma.rn.f32 for `acc + a * b`: the SIMT kernels' inner loops.
  bool fuseMulAdd() const override { return true; }

  // Math without libdevice (docs/gpu.md gives the accuracy): sqrt and
  // rsqrt are IEEE (sqrt.rn, div.rn); exp, log, pow use the hardware's
  // ex2.approx / lg2.approx; tanh and erf are built from them and
  // polynomials. f64 arguments are computed in f32, except sqrt, rsqrt, abs.
  llvm::Value *emitMath(ir::MathFn f, llvm::Value *x) override;
  llvm::Value *emitPow(llvm::Value *a, llvm::Value *b) override;
  // shfl.sync.{bfly,down,up,idx}.b32 over the full warp (member mask
  // 0xffffffff: every lane must execute it, docs/gpu.md).
  llvm::Value *emitShuffle(ir::ShuffleOp op, llvm::Value *value, llvm::Value *lane) override;

private:
  llvm::Value *mathF32(ir::MathFn f, llvm::Value *x);
  llvm::Value *ex2(llvm::Value *x);
  llvm::Value *lg2(llvm::Value *x);
  llvm::Value *polynomial(llvm::Value *x, std::initializer_list<double> coefficients); // c0 + c1 x + ...
};

} // namespace tk::nvptx
