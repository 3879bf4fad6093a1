#include "backends/x86/EmitKernelFunction.h"

#include "backends/common/LowerExprToLLVM.h"
#include "backends/x86/LowerStmtToLLVM.h"
#include "backends/x86/CacheHints.h"
#include "ir/IRVisitor.h"

#include <set>

namespace tk::x86 {

using ir::LStmt;
using ir::ScalarType;

namespace {

// Tensors the body reads or writes (in order of first use: it orders the
// buffers the function allocates), and those it allocates itself.
class CollectTensors : public ir::LoopVisitor {
public:
  std::vector<const ir::TensorDecl *> used;
  std::set<const ir::TensorDecl *> allocated;

protected:
  void visitLoad(const ir::Expr &e) override {
    use(e->tensor.get());
    LoopVisitor::visitLoad(e);
  }
  // A store's tensor counts after what its value, guard and indices read.
  void visitStore(const LStmt &s) override {
    walkExpr(s.value);
    walkExpr(s.pred);
    walkExprs(s.indices);
    use(s.tensor.get());
  }
  void visitAlloc(const LStmt &s) override {
    allocated.insert(s.tensor.get());
    LoopVisitor::visitAlloc(s);
  }

private:
  void use(const ir::TensorDecl *t) {
    if (std::find(used.begin(), used.end(), t) == used.end()) used.push_back(t);
  }
};

} // namespace

void emitKernelFunction(CodegenContext &cg, const ir::LoweredFunc &f) {
  auto &b = cg.b;
  if (!f.op) throw InternalError("x86 backend: function '" + f.name + "' has no op");
  const ir::Op &op = *f.op;
  if (f.target != ir::TargetFamily::Cpu) {
    cg.diags.error(f.loc, "function '" + f.name + "' targets " + std::string(ir::targetFamilyName(f.target)) +
                              ", not cpu");
    return;
  }
  // Scalars travel in their storage form (f16/bf16 as 16-bit patterns, bool
  // as a byte), so the C prototype needs no compiler-specific types.
  std::vector<llvm::Type *> params;
  for (const ir::Param &p : op.inputs) params.push_back(p.isScalar() ? cg.memType(p.type) : b.getPtrTy());
  params.insert(params.end(), op.outputs.size(), b.getPtrTy());
  params.insert(params.end(), op.symbols.size(), b.getInt64Ty());
  auto *fnType = llvm::FunctionType::get(b.getInt32Ty(), params, false);
  auto *fn = llvm::Function::Create(fnType, llvm::GlobalValue::ExternalLinkage, f.name, cg.mod);
  cg.setFunctionAttributes(fn);
  cg.kernelName = f.name;
  cg.outlinedCount = 0;
  cg.outlinedCalls = 0;
  cg.frames.push_back(FunctionFrame{fn, nullptr, {}, {}, {}, false, {}});
  cg.pushScope();
  b.SetInsertPoint(llvm::BasicBlock::Create(cg.ctx, "entry", fn));

  unsigned argNo = 0;
  for (const ir::Param &p : op.inputs) {
    llvm::Argument *arg = fn->getArg(argNo++);
    arg->setName(p.name);
    if (p.isScalar()) {
      cg.bind(p.name, {fromStorage(cg, arg, p.type), p.type});
      continue;
    }
    // Inputs are read-only; docs/abi.md requires outputs not to overlap them.
    arg->addAttr(llvm::Attribute::ReadOnly);
    arg->addAttr(llvm::Attribute::NoCapture);
    cg.frame().buffers[p.tensor.get()] = arg;
  }
  for (const ir::TensorPtr &t : op.outputs) {
    llvm::Argument *arg = fn->getArg(argNo++);
    arg->setName(t->name);
    arg->addAttr(llvm::Attribute::NoAlias);
    arg->addAttr(llvm::Attribute::NoCapture);
    cg.frame().buffers[t.get()] = arg;
  }
  for (const std::string &s : op.symbols) {
    llvm::Argument *arg = fn->getArg(argNo++);
    arg->setName(s);
    cg.bind(s, {arg, ScalarType::I64});
  }

  CollectTensors tensors;
  tensors.walkStmt(f.body);
  std::vector<llvm::Value *> whole;
  for (const ir::TensorDecl *t : tensors.used) {
    if (cg.frame().buffers.count(t) || tensors.allocated.count(t)) continue;
    bool intermediate = std::any_of(op.intermediates.begin(), op.intermediates.end(),
                                    [&](const ir::TensorPtr &p) { return p.get() == t; });
    if (!intermediate)
      throw InternalError("x86 backend: '" + f.name + "' uses tensor '" + t->name + "' that it neither receives nor allocates");
    llvm::Value *bytes = b.getInt64(ir::scalarTypeBytes(t->dtype));
    for (const ir::Expr &d : t->shape) bytes = b.CreateMul(bytes, lowerExprAs(cg, d, ScalarType::I64));
    llvm::Value *ptr = cg.emitCheckedMalloc(bytes, t->name);
    cg.frame().liveHeap.push_back(ptr);
    cg.frame().buffers[t] = ptr;
    whole.push_back(ptr);
  }

  lowerStmt(cg, f.body);
  emitStreamFence(cg);
  for (auto it = whole.rbegin(); it != whole.rend(); ++it) cg.emitFree(*it);
  b.CreateRet(b.getInt32(0));
  cg.frames.pop_back();
}

} // namespace tk::x86
