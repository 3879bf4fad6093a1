#include "backends/x86/OutlineCall.h"

#include "backends/x86/CaptureFreeValues.h"

#include <fmt/format.h>

namespace tk::x86 {

void emitOutlinedCall(CodegenContext &cg, const std::string &suffix, const ir::LStmt &root,
                      const std::function<void()> &body, const std::vector<ir::Expr> &alsoReads) {
  auto &b = cg.b;
  Captures cap;
  cap.stmt(cg, root);
  for (const ir::Expr &e : alsoReads) cap.expr(cg, e);
  std::vector<llvm::Type *> params;
  std::vector<llvm::Value *> args;
  std::vector<VarBinding> vars;
  for (const std::string &v : cap.vars) {
    vars.push_back(*cg.lookup(v));
    args.push_back(vars.back().value);
    params.push_back(args.back()->getType());
  }
  for (const ir::TensorDecl *t : cap.tensors) {
    args.push_back(cg.buffer(*t));
    params.push_back(b.getPtrTy());
  }
  auto *type = llvm::FunctionType::get(b.getVoidTy(), params, false);
  auto *fn = llvm::Function::Create(type, llvm::GlobalValue::PrivateLinkage,
                                    fmt::format("{}.{}{}", cg.kernelName, suffix, cg.outlinedCalls++), cg.mod);
  cg.setFunctionAttributes(fn);
  fn->addFnAttr(llvm::Attribute::NoInline);
  llvm::Function *caller = cg.frame().fn;
  {
    llvm::IRBuilderBase::InsertPointGuard guard(b);
    cg.frames.push_back(FunctionFrame{fn, nullptr, {}, {}, {}, true, {}});
    cg.pushScope();
    b.SetInsertPoint(llvm::BasicBlock::Create(cg.ctx, "entry", fn));
    for (size_t i = 0; i < cap.vars.size(); ++i) {
      fn->getArg(i)->setName(cap.vars[i]);
      cg.bind(cap.vars[i], {fn->getArg(i), vars[i].type});
    }
    for (size_t i = 0; i < cap.tensors.size(); ++i) {
      llvm::Argument *arg = fn->getArg(cap.vars.size() + i);
      arg->setName(cap.tensors[i]->name);
      cg.frame().buffers[cap.tensors[i]] = arg;
    }
    body();
    b.CreateRetVoid();
    cg.frames.pop_back();
  }
  if (cg.streaming.count(fn)) cg.streaming.insert(caller);
  b.CreateCall(fn, args);
}

} // namespace tk::x86
