#include "backends/common/HostCodegenContext.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/TargetSelect.h>

#include <mutex>

namespace tk::codegen {

HostCpu baselineX86Host() { return HostCpu{"x86_64-pc-linux-gnu", "x86-64", "", 128}; }

void initializeX86LLVMTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
  });
}

HostCodegenContext::HostCodegenContext(llvm::Module &m, HostCpu cpu, DiagEngine &d)
    : CodegenContext(m, d), hostCpu(std::move(cpu)) {}

void HostCodegenContext::setFunctionAttributes(llvm::Function *fn) {
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->addFnAttr("target-cpu", hostCpu.cpu);
  if (!hostCpu.features.empty()) fn->addFnAttr("target-features", hostCpu.features);
  // LLVM's tuning for AVX-512 CPUs prefers 256-bit vectors (a frequency
  // penalty on old Intel parts); the register tiles already use the full
  // width, and on current cores (Zen 4/5, Sapphire Rapids) so should the
  // loop vectorizer: elementwise ops and copies then move 64 bytes a step.
  fn->addFnAttr("prefer-vector-width", std::to_string(hostCpu.vectorBits));
}

void HostCodegenContext::emitFree(llvm::Value *ptr) {
  auto *type = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false);
  b.CreateCall(runtimeFunction("tkrt_free", type), {ptr});
}

void HostCodegenContext::emitExitUnlessZero(llvm::Value *status, const std::string &name) {
  llvm::BasicBlock *fail = newBlock(name + ".fail");
  llvm::BasicBlock *ok = newBlock(name + ".ok");
  b.CreateCondBr(b.CreateICmpEQ(status, b.getInt32(0)), ok, fail);
  b.SetInsertPoint(fail);
  emitEarlyExit(status);
  b.SetInsertPoint(ok);
}

void HostCodegenContext::emitEarlyExit(llvm::Value *status) {
  FunctionFrame &f = frame();
  for (auto it = f.liveHeap.rbegin(); it != f.liveHeap.rend(); ++it) emitFree(*it);
  if (f.statusOut) {
    llvm::StoreInst *st = b.CreateStore(status, f.statusOut);
    st->setAtomic(llvm::AtomicOrdering::Monotonic);
    st->setAlignment(llvm::Align(4));
    b.CreateRetVoid();
  } else {
    b.CreateRet(status);
  }
}

llvm::Value *HostCodegenContext::emitCheckedMalloc(llvm::Value *bytes, const std::string &name) {
  auto *type = llvm::FunctionType::get(b.getPtrTy(), {b.getInt64Ty()}, false);
  // tkrt_alloc's blocks start on a cache line (kBufferAlign), so that a
  // packed panel's rows are whole vectors (a zmm load crossing two lines
  // costs two), and a kernel called again reuses its large blocks instead
  // of faulting in fresh pages (docs/abi.md).
  llvm::Value *ptr = b.CreateCall(runtimeFunction("tkrt_alloc", type), {bytes}, name);
  llvm::BasicBlock *fail = newBlock(name + ".oom");
  llvm::BasicBlock *ok = newBlock(name + ".ok");
  b.CreateCondBr(b.CreateIsNull(ptr), fail, ok);
  b.SetInsertPoint(fail);
  emitEarlyExit(b.getInt32(kStatusOutOfMemory));
  b.SetInsertPoint(ok);
  return ptr;
}

// tanh and erf have no LLVM intrinsic: they call libm.
static llvm::Value *callLibm(HostCodegenContext &cg, const char *name, llvm::Value *x) {
  bool dbl = x->getType()->isDoubleTy();
  auto *type = llvm::FunctionType::get(x->getType(), {x->getType()}, false);
  llvm::FunctionCallee f = cg.runtimeFunction(dbl ? name : std::string(name) + "f", type);
  if (auto *fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) fn->setOnlyAccessesInaccessibleMemory();
  return cg.b.CreateCall(f, {x});
}

llvm::Value *HostCodegenContext::emitMath(ir::MathFn f, llvm::Value *x) {
  switch (f) {
  case ir::MathFn::Exp: return b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
  case ir::MathFn::Log: return b.CreateUnaryIntrinsic(llvm::Intrinsic::log, x);
  case ir::MathFn::Sqrt: return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
  case ir::MathFn::Rsqrt:
    return b.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0), b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
  case ir::MathFn::Tanh: return callLibm(*this, "tanh", x);
  case ir::MathFn::Erf: return callLibm(*this, "erf", x);
  case ir::MathFn::Abs: return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  }
  throw InternalError("host codegen: unknown math function");
}

llvm::Value *HostCodegenContext::emitPow(llvm::Value *a, llvm::Value *x) {
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, a, x);
}

} // namespace tk::codegen
