#include "backends/nvptx/EmitDeviceKernel.h"

#include "backends/nvptx/EmitGpuIntrinsic.h"

#include "backends/common/LowerCommonStmt.h"
#include "backends/common/LowerExprToLLVM.h"
#include "ir/TensorSize.h"

namespace tk::nvptx {

using ir::LStmt;
using ir::ScalarType;

namespace {

// NVPTX address space of __shared__ memory.
constexpr unsigned kSharedAddressSpace = 3;

bool isOpOutput(const ir::Op &op, const ir::TensorDecl *t) {
  return std::any_of(op.outputs.begin(), op.outputs.end(), [&](const ir::TensorPtr &o) { return o.get() == t; });
}

struct DeviceLowering {
  DeviceContext &dc;
  const KernelLaunch &launch;
  llvm::GlobalVariable *dynamicShared = nullptr; // the extern .shared array (launch.shape.dynamicShared())
  int64_t sharedOffset = 0;                      // next free byte in it

  // A shared tensor of `bytes`: a static .shared array of its own, or the
  // next 16-byte aligned slice of the dynamic array, in the order
  // ir::launchShape counted them.
  llvm::Value *sharedBuffer(const ir::TensorDecl &t, llvm::ArrayType *type, int64_t bytes) {
    if (!launch.shape.dynamicShared()) {
      auto *gv = new llvm::GlobalVariable(dc.mod, type, false, llvm::GlobalValue::InternalLinkage,
                                          llvm::UndefValue::get(type), launch.kernel + "_" + t.name, nullptr,
                                          llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
      gv->setAlignment(llvm::Align(16));
      return gv;
    }
    if (!dynamicShared) {
      auto *bytesType = llvm::ArrayType::get(dc.b.getInt8Ty(), 0);
      dynamicShared = new llvm::GlobalVariable(dc.mod, bytesType, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                               launch.kernel + "_dynamic_shared", nullptr,
                                               llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
      dynamicShared->setAlignment(llvm::Align(16));
    }
    llvm::Value *p = dc.b.CreateConstInBoundsGEP1_64(dc.b.getInt8Ty(), dynamicShared, static_cast<uint64_t>(sharedOffset),
                                                     t.name + ".shared");
    sharedOffset += (bytes + 15) / 16 * 16;
    return p;
  }

  void lowerWorkerLoop(const LStmt &s) {
    bool warps = s.worker == ir::WorkerKind::Warps;
    llvm::Value *tid = dc.threadIndex();
    llvm::Value *id = warps ? dc.b.CreateLShr(tid, 5, "warp") : tid;
    int64_t n = 0;
    bool full = ir::isConstInt(s.extent, &n) && n * (warps ? 32 : 1) == launch.shape.threads;
    auto body = [&] {
      dc.pushScope();
      dc.bind(s.var, {dc.b.CreateAdd(codegen::lowerExprAs(dc, s.min, ScalarType::I64), id), ScalarType::I64});
      lower(s.body);
      dc.popScope();
    };
    if (full) return body();
    codegen::emitGuarded(dc, dc.b.CreateICmpULT(id, codegen::lowerExprAs(dc, s.extent, ScalarType::I64)), s.var, body);
  }

  void lowerFor(const LStmt &s) {
    if (s.forKind == ir::ForKind::Parallel) {
      if (s.worker == ir::WorkerKind::Threads || s.worker == ir::WorkerKind::Warps) return lowerWorkerLoop(s);
      throw InternalError("nvptx backend: a parallel loop on " +
                          std::string(s.worker ? ir::workerKindName(*s.worker) : "no worker") + " inside a launch");
    }
    std::vector<llvm::Metadata *> props;
    if (s.forKind == ir::ForKind::Unrolled && ir::isConstInt(s.extent))
      props.push_back(llvm::MDNode::get(dc.ctx, {llvm::MDString::get(dc.ctx, "llvm.loop.unroll.full")}));
    llvm::Value *begin = codegen::lowerExprAs(dc, s.min, ScalarType::I64);
    llvm::Value *end = dc.b.CreateAdd(begin, codegen::lowerExprAs(dc, s.extent, ScalarType::I64));
    dc.emitLoop(begin, end, s.var, props, [&](llvm::Value *iv) {
      dc.pushScope();
      dc.bind(s.var, {iv, ScalarType::I64});
      lower(s.body);
      dc.popScope();
    });
  }

  void lowerAlloc(const LStmt &s) {
    const ir::TensorDecl &t = *s.tensor;
    ir::ConstantSize size = ir::constantSize(t);
    if (!size.known) throw InternalError("nvptx backend: tensor '" + t.name + "' has a symbolic shape");
    if (size.tooLarge) { // a hole filled with a huge value; the frontend refuses constant ones
      dc.diags.error(s.loc, "tensor '" + t.name + "' (" + ir::printTensorType(t) + ") is too large: more than 2^47 bytes");
      return;
    }
    int64_t count = size.bytes / ir::scalarTypeBytes(t.dtype);
    auto *type = llvm::ArrayType::get(dc.memType(t.dtype), std::max<int64_t>(count, 1));
    llvm::Value *ptr;
    switch (t.scope) {
    case ir::Scope::Shared:
      ptr = sharedBuffer(t, type, std::max<int64_t>(count, 0) * ir::scalarTypeBytes(t.dtype));
      break;
    case ir::Scope::Register:
    case ir::Scope::Local: ptr = dc.entryAlloca(type, t.name); break;
    default:
      throw InternalError("nvptx backend: " + std::string(ir::scopeName(t.scope)) + " tensor '" + t.name +
                          "' inside a launch");
    }
    dc.frame().buffers[&t] = ptr;
    lower(s.body);
    dc.frame().buffers.erase(&t);
  }

  // A hand-written dispatcher, as in every emitter: it emits blocks in a
  // fixed order and binds values in the codegen context's own scopes.
  void lower(const ir::LStmtPtr &s) {
    if (!s) return;
    auto sub = [&](const ir::LStmtPtr &c) { lower(c); };
    switch (s->kind) {
    case LStmt::Kind::Block:
      for (const ir::LStmtPtr &c : s->stmts) lower(c);
      return;
    case LStmt::Kind::For: return lowerFor(*s);
    case LStmt::Kind::Store: return codegen::lowerStore(dc, *s);
    case LStmt::Kind::Alloc: return lowerAlloc(*s);
    case LStmt::Kind::If: return codegen::lowerIf(dc, *s, sub);
    case LStmt::Kind::Let: return codegen::lowerLet(dc, *s, sub);
    case LStmt::Kind::Barrier: return dc.emitBarrier();
    case LStmt::Kind::Intrinsic: return emitGpuIntrinsic(dc, *s);
    case LStmt::Kind::Prefetch: return; // a hint; GPU kernels stage data in shared memory instead
    case LStmt::Kind::Check: throw InternalError("nvptx backend: a run-time check inside a launch");
    case LStmt::Kind::Dma:
    case LStmt::Kind::DmaWait: throw InternalError("nvptx backend: a Sunway dma in cuda code");
    }
    throw InternalError("nvptx backend: unknown statement kind");
  }
};

void annotate(DeviceContext &dc, llvm::Function *fn, const char *key, int64_t value) {
  llvm::Metadata *ops[] = {llvm::ValueAsMetadata::get(fn), llvm::MDString::get(dc.ctx, key),
                           llvm::ConstantAsMetadata::get(dc.b.getInt32(static_cast<uint32_t>(value)))};
  dc.mod.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(dc.ctx, ops));
}

} // namespace

void emitDeviceKernel(DeviceContext &dc, const ir::LoweredFunc &f, const KernelLaunch &l) {
  auto &b = dc.b;
  const ir::Op &op = *f.op;
  std::vector<llvm::Type *> params(l.tensors.size(), b.getPtrTy());
  for (const std::string &s : l.scalars) params.push_back(dc.memType(hostScalarType(op, s)));
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), params, false),
                                    llvm::GlobalValue::ExternalLinkage, l.kernel, dc.mod);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  annotate(dc, fn, "kernel", 1);
  annotate(dc, fn, "maxntidx", l.shape.threads);
  dc.frames.push_back(codegen::FunctionFrame{fn, nullptr, {}, {}, {}, false, {}});
  dc.pushScope();
  b.SetInsertPoint(llvm::BasicBlock::Create(dc.ctx, "entry", fn));

  unsigned argNo = 0;
  for (const ir::TensorDecl *t : l.tensors) {
    llvm::Argument *arg = fn->getArg(argNo++);
    arg->setName(t->name);
    // Outputs do not overlap anything else (docs/abi.md). Inputs may overlap
    // each other but nothing writes them, so noalias holds for them too and
    // lets NVPTX read them through the read-only data cache (ld.global.nc).
    if (isOpOutput(op, t)) arg->addAttr(llvm::Attribute::NoAlias);
    if (t->role == ir::TensorRole::Input) {
      arg->addAttr(llvm::Attribute::ReadOnly);
      arg->addAttr(llvm::Attribute::NoAlias);
    }
    arg->addAttr(llvm::Attribute::NoCapture);
    dc.frame().buffers[t] = arg;
  }
  for (const std::string &s : l.scalars) {
    llvm::Argument *arg = fn->getArg(argNo++);
    arg->setName(s);
    ScalarType type = hostScalarType(op, s);
    dc.bind(s, {codegen::fromStorage(dc, arg, type), type});
  }

  DeviceLowering lowering{dc, l};
  const LStmt &loop = *l.loop;
  auto body = [&](llvm::Value *bid) {
    dc.pushScope();
    dc.bind(loop.var, {b.CreateAdd(codegen::lowerExprAs(dc, loop.min, ScalarType::I64), bid), ScalarType::I64});
    lowering.lower(loop.body);
    dc.popScope();
  };
  if (!l.multiDimGrid) {
    body(dc.blockIndex());
  } else {
    // Every thread of a block has the same index, so the guard keeps
    // barriers uniform.
    llvm::Value *bid = dc.linearBlockIndex();
    codegen::emitGuarded(dc, b.CreateICmpULT(bid, codegen::lowerExprAs(dc, loop.extent, ScalarType::I64)), "block",
                         [&] { body(bid); });
  }
  b.CreateRetVoid();
  dc.frames.pop_back();
}

} // namespace tk::nvptx
