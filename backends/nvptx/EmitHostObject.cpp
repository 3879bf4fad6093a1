#include "backends/nvptx/EmitHostObject.h"

#include "backends/common/EmitModule.h"
#include "backends/common/HostCodegenContext.h"
#include "backends/common/LowerExprToLLVM.h"
#include "backends/common/TensorBytes.h"

#include <fmt/format.h>

namespace tk::nvptx {

using ir::LStmt;
using ir::ScalarType;

namespace {

struct HostEmitter {
  explicit HostEmitter(codegen::HostCodegenContext &c) : cg(c) {}

  codegen::HostCodegenContext &cg;
  llvm::GlobalVariable *ptx = nullptr, *moduleCache = nullptr;
  // Per function being emitted:
  const std::vector<KernelLaunch> *launches = nullptr;
  size_t nextLaunch = 0;
  llvm::Value *stream = nullptr;
  std::map<std::string, llvm::Value *> rawScalars; // storage-form arguments, passed on to kernels
  std::vector<llvm::Value *> liveDevice;           // device buffers to free on every exit

  llvm::FunctionType *fnType(llvm::Type *ret, std::vector<llvm::Type *> params) {
    return llvm::FunctionType::get(ret, params, false);
  }
  llvm::FunctionCallee runtime(const char *name, std::vector<llvm::Type *> params) {
    return cg.runtimeFunction(name, fnType(cg.b.getInt32Ty(), std::move(params)));
  }

  llvm::GlobalVariable *privateGlobal(llvm::Constant *init, const std::string &name, bool constant) {
    auto *gv = new llvm::GlobalVariable(cg.mod, init->getType(), constant, llvm::GlobalValue::PrivateLinkage, init, name);
    if (constant) gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return gv;
  }

  void freeDevice(llvm::Value *ptr) {
    cg.b.CreateCall(runtime("tkrt_cuda_free", {cg.b.getPtrTy(), cg.b.getPtrTy()}), {ptr, stream});
  }

  // if (status != 0) { free live device buffers; return status; }
  void exitOnFailure(llvm::Value *status, const std::string &name) {
    llvm::BasicBlock *fail = cg.newBlock(name + ".fail");
    llvm::BasicBlock *ok = cg.newBlock(name + ".ok");
    cg.b.CreateCondBr(cg.b.CreateICmpNE(status, cg.b.getInt32(0)), fail, ok);
    cg.b.SetInsertPoint(fail);
    for (auto it = liveDevice.rbegin(); it != liveDevice.rend(); ++it) freeDevice(*it);
    cg.b.CreateRet(status);
    cg.b.SetInsertPoint(ok);
  }

  void check(const LStmt &s) {
    llvm::Value *ok = codegen::lowerExprAs(cg, s.cond, ScalarType::Bool);
    exitOnFailure(cg.b.CreateSelect(ok, cg.b.getInt32(0), cg.b.getInt32(s.errorCode)), "check");
  }

  void alloc(const LStmt &s) {
    const ir::TensorDecl &t = *s.tensor;
    // tkrt_cuda_alloc takes a count <= 0 as 1 byte: an overflowing size
    // (-1 from emitTensorBytes) returns status 3 here instead.
    llvm::Value *bytes = codegen::emitTensorBytes(cg, t);
    llvm::Value *overflow = cg.b.CreateICmpSLT(bytes, cg.b.getInt64(0));
    exitOnFailure(cg.b.CreateSelect(overflow, cg.b.getInt32(codegen::kStatusOutOfMemory), cg.b.getInt32(0)), t.name + ".size");
    llvm::AllocaInst *slot = cg.entryAlloca(cg.b.getPtrTy(), t.name + ".slot");
    llvm::Value *status =
        cg.b.CreateCall(runtime("tkrt_cuda_alloc", {cg.b.getPtrTy(), cg.b.getInt64Ty(), cg.b.getPtrTy()}),
                        {slot, bytes, stream});
    exitOnFailure(status, t.name + ".alloc");
    llvm::Value *ptr = cg.b.CreateLoad(cg.b.getPtrTy(), slot, t.name);
    cg.frame().buffers[&t] = ptr;
    liveDevice.push_back(ptr);
    host(s.body);
    liveDevice.pop_back();
    cg.frame().buffers.erase(&t);
    freeDevice(ptr);
  }

  void launch(const LStmt &loop) {
    const KernelLaunch &l = launches->at(nextLaunch++);
    if (l.loop != &loop) throw InternalError("nvptx backend: launches out of order in '" + l.kernel + "'");
    auto &b = cg.b;
    // cuLaunchKernel's kernelParams: one pointer per parameter, to a copy
    // of its value.
    std::vector<llvm::Value *> values;
    for (const ir::TensorDecl *t : l.tensors) values.push_back(cg.buffer(*t));
    for (const std::string &s : l.scalars) values.push_back(rawScalars.at(s));
    auto *argsType = llvm::ArrayType::get(b.getPtrTy(), std::max<size_t>(values.size(), 1));
    llvm::AllocaInst *args = cg.entryAlloca(argsType, l.kernel + ".args");
    for (size_t i = 0; i < values.size(); ++i) {
      llvm::AllocaInst *slot = cg.entryAlloca(values[i]->getType(), fmt::format("{}.arg{}", l.kernel, i));
      b.CreateStore(values[i], slot);
      b.CreateStore(slot, b.CreateConstInBoundsGEP2_32(argsType, args, 0, static_cast<unsigned>(i)));
    }
    llvm::Value *grid = codegen::lowerExprAs(cg, loop.extent, ScalarType::I64);
    auto *name = privateGlobal(llvm::ConstantDataArray::getString(cg.ctx, l.kernel), l.kernel + ".name", true);
    auto *fnCache = privateGlobal(llvm::ConstantPointerNull::get(b.getPtrTy()), l.kernel + ".function", false);
    int64_t dynamicShared = l.shape.dynamicShared() ? l.shape.sharedBytes : 0;
    llvm::Value *status = b.CreateCall(
        runtime("tkrt_cuda_launch_kernel", {b.getPtrTy(), b.getPtrTy(), b.getPtrTy(), b.getPtrTy(), b.getInt64Ty(),
                                            b.getInt32Ty(), b.getInt32Ty(), b.getPtrTy(), b.getPtrTy()}),
        {moduleCache, ptx, fnCache, name, grid, b.getInt32(static_cast<uint32_t>(l.shape.threads)),
         b.getInt32(static_cast<uint32_t>(dynamicShared)), args, stream});
    exitOnFailure(status, l.kernel);
  }

  void host(const ir::LStmtPtr &s) {
    switch (s->kind) {
    case LStmt::Kind::Block:
      for (const ir::LStmtPtr &c : s->stmts) host(c);
      return;
    case LStmt::Kind::Check: return check(*s);
    case LStmt::Kind::Alloc: return alloc(*s);
    default: return launch(*s);
    }
  }

  void function(const ir::LoweredFunc &f, const std::vector<KernelLaunch> &fl) {
    auto &b = cg.b;
    const ir::Op &op = *f.op;
    std::vector<llvm::Type *> params;
    for (const ir::Param &p : op.inputs) params.push_back(p.isScalar() ? cg.memType(p.type) : b.getPtrTy());
    params.insert(params.end(), op.outputs.size(), b.getPtrTy());
    params.insert(params.end(), op.symbols.size(), b.getInt64Ty());
    params.push_back(b.getPtrTy()); // stream
    auto *fn = llvm::Function::Create(fnType(b.getInt32Ty(), params), llvm::GlobalValue::ExternalLinkage, f.name, cg.mod);
    cg.setFunctionAttributes(fn);
    cg.frames.push_back(codegen::FunctionFrame{fn, nullptr, {}, {}, {}, false, {}});
    cg.pushScope();
    b.SetInsertPoint(llvm::BasicBlock::Create(cg.ctx, "entry", fn));
    launches = &fl;
    nextLaunch = 0;
    rawScalars.clear();
    unsigned argNo = 0;
    for (const ir::Param &p : op.inputs) {
      llvm::Argument *arg = fn->getArg(argNo++);
      arg->setName(p.name);
      if (p.isScalar()) {
        rawScalars[p.name] = arg;
        cg.bind(p.name, {codegen::fromStorage(cg, arg, p.type), p.type});
      } else {
        cg.frame().buffers[p.tensor.get()] = arg;
      }
    }
    for (const ir::TensorPtr &t : op.outputs) {
      fn->getArg(argNo)->setName(t->name);
      cg.frame().buffers[t.get()] = fn->getArg(argNo++);
    }
    for (const std::string &s : op.symbols) {
      llvm::Argument *arg = fn->getArg(argNo++);
      arg->setName(s);
      rawScalars[s] = arg;
      cg.bind(s, {arg, ScalarType::I64});
    }
    stream = fn->getArg(argNo);
    stream->setName("stream");
    host(f.body);
    b.CreateRet(b.getInt32(0));
    cg.frames.pop_back();
  }
};

} // namespace

std::string emitHostObject(const std::vector<ir::LoweredFunc> &funcs,
                           const std::vector<std::vector<KernelLaunch>> &launches, const std::string &ptx,
                           int optLevel, const std::string &moduleName, DiagEngine &diags) {
  codegen::initializeX86LLVMTarget();
  codegen::HostCpu host = codegen::baselineX86Host();
  std::unique_ptr<llvm::TargetMachine> tm =
      codegen::createTargetMachine(host.triple, host.cpu, host.features, optLevel, llvm::Reloc::PIC_);
  llvm::LLVMContext ctx;
  llvm::Module m(moduleName, ctx);
  m.setSourceFileName(moduleName);
  m.setTargetTriple(host.triple);
  m.setDataLayout(tm->createDataLayout());
  m.setPICLevel(llvm::PICLevel::BigPIC);
  codegen::HostCodegenContext cg(m, host, diags);
  HostEmitter e(cg);
  // The PTX text (NUL-terminated, as cuModuleLoadData wants it) and the
  // module handle cache it is loaded into, private to this object.
  e.ptx = e.privateGlobal(llvm::ConstantDataArray::getString(ctx, ptx), "tk.ptx", true);
  e.moduleCache = e.privateGlobal(llvm::ConstantPointerNull::get(cg.b.getPtrTy()), "tk.module", false);
  for (size_t i = 0; i < funcs.size(); ++i) e.function(funcs[i], launches[i]);
  codegen::verifyGeneratedModule(m, "nvptx host code");
  codegen::optimizeModule(m, *tm, optLevel);
  return codegen::emitModuleFile(m, *tm, llvm::CodeGenFileType::ObjectFile);
}

} // namespace tk::nvptx
