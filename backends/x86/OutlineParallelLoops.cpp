#include "backends/x86/OutlineParallelLoops.h"

#include "backends/common/LowerExprToLLVM.h"
#include "backends/x86/LowerStmtToLLVM.h"
#include "backends/x86/CacheHints.h"
#include "backends/x86/CaptureFreeValues.h"

#include <fmt/format.h>

namespace tk::x86 {

using ir::LStmt;
using ir::ScalarType;

void outlineParallelLoop(CodegenContext &cg, const LStmt &loop) {
  auto &b = cg.b;
  Captures cap;
  cap.stmt(cg, loop.body);

  // Context layout: {i32 *status, i64 min, captured vars..., captured buffers...}.
  std::vector<llvm::Type *> fields{b.getPtrTy(), b.getInt64Ty()};
  std::vector<VarBinding> varValues;
  for (const std::string &v : cap.vars) {
    varValues.push_back(*cg.lookup(v));
    fields.push_back(varValues.back().value->getType());
  }
  for (size_t i = 0; i < cap.tensors.size(); ++i) fields.push_back(b.getPtrTy());
  llvm::StructType *ctxType = llvm::StructType::get(cg.ctx, fields);

  llvm::Value *min = lowerExprAs(cg, loop.min, ScalarType::I64);
  llvm::Value *extent = lowerExprAs(cg, loop.extent, ScalarType::I64);
  llvm::AllocaInst *status = cg.entryAlloca(b.getInt32Ty(), "par.status");
  llvm::AllocaInst *ctx = cg.entryAlloca(ctxType, "par.ctx");
  b.CreateStore(b.getInt32(0), status);
  std::vector<llvm::Value *> values{status, min};
  for (const VarBinding &v : varValues) values.push_back(v.value);
  for (const ir::TensorDecl *t : cap.tensors) values.push_back(cg.buffer(*t));
  for (unsigned i = 0; i < values.size(); ++i) b.CreateStore(values[i], b.CreateStructGEP(ctxType, ctx, i));

  auto *bodyType = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getInt64Ty(), b.getInt64Ty()}, false);
  auto *fn = llvm::Function::Create(bodyType, llvm::GlobalValue::PrivateLinkage,
                                    fmt::format("{}.par{}", cg.kernelName, cg.outlinedCount++), cg.mod);
  cg.setFunctionAttributes(fn);
  {
    llvm::IRBuilderBase::InsertPointGuard guard(b);
    cg.frames.push_back(FunctionFrame{fn, nullptr, {}, {}, {}, true, {}});
    cg.pushScope();
    b.SetInsertPoint(llvm::BasicBlock::Create(cg.ctx, "entry", fn));
    llvm::Value *ctxArg = fn->getArg(0);
    fn->getArg(0)->setName("ctx");
    fn->getArg(1)->setName("begin");
    fn->getArg(2)->setName("end");
    auto field = [&](unsigned i) {
      return b.CreateLoad(fields[i], b.CreateStructGEP(ctxType, ctxArg, i));
    };
    cg.frame().statusOut = field(0);
    llvm::Value *base = field(1);
    for (size_t i = 0; i < cap.vars.size(); ++i)
      cg.bind(cap.vars[i], {field(2 + i), varValues[i].type});
    for (size_t i = 0; i < cap.tensors.size(); ++i)
      cg.frame().buffers[cap.tensors[i]] = field(2 + cap.vars.size() + i);
    cg.emitLoop(fn->getArg(1), fn->getArg(2), loop.var + ".chunk", {}, [&](llvm::Value *iv) {
      cg.pushScope();
      cg.bind(loop.var, {b.CreateAdd(base, iv, loop.var), ScalarType::I64});
      lowerStmt(cg, loop.body);
      cg.popScope();
    });
    emitStreamFence(cg);
    b.CreateRetVoid();
    cg.frames.pop_back();
  }

  auto *bodyPtr = b.getPtrTy();
  auto *pforType = llvm::FunctionType::get(b.getInt32Ty(), {b.getInt64Ty(), bodyPtr, b.getPtrTy()}, false);
  b.CreateCall(cg.runtimeFunction("tkrt_parallel_for", pforType), {extent, fn, ctx});
  llvm::LoadInst *result = b.CreateLoad(b.getInt32Ty(), status, "par.result");
  result->setAtomic(llvm::AtomicOrdering::Monotonic);
  result->setAlignment(llvm::Align(4));
  cg.emitExitUnlessZero(result, "par");
}

} // namespace tk::x86
