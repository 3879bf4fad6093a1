#include "backends/common/CodegenContext.h"

namespace tk::codegen {

using ir::ScalarType;

CodegenContext::CodegenContext(llvm::Module &m, DiagEngine &d) : ctx(m.getContext()), mod(m), b(m.getContext()), diags(d) {}

llvm::Type *CodegenContext::regType(ScalarType t) {
  switch (t) {
  case ScalarType::F16:
  case ScalarType::BF16:
  case ScalarType::F32: return b.getFloatTy();
  case ScalarType::F64: return b.getDoubleTy();
  case ScalarType::I8: return b.getInt8Ty();
  case ScalarType::I32: return b.getInt32Ty();
  case ScalarType::I64: return b.getInt64Ty();
  case ScalarType::Bool: return b.getInt1Ty();
  }
  throw InternalError("unknown scalar type");
}

llvm::Type *CodegenContext::memType(ScalarType t) {
  switch (t) {
  case ScalarType::F16:
  case ScalarType::BF16: return b.getInt16Ty();
  case ScalarType::Bool: return b.getInt8Ty();
  default: return regType(t);
  }
}

const VarBinding *CodegenContext::lookup(const std::string &name) const {
  const auto &scopes = frames.back().scopes;
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) return &found->second;
  }
  return nullptr;
}

llvm::Value *CodegenContext::buffer(const ir::TensorDecl &t) const {
  auto it = frames.back().buffers.find(&t);
  if (it == frames.back().buffers.end())
    throw InternalError("codegen: tensor '" + t.name + "' is used outside its allocation");
  return it->second;
}

llvm::AllocaInst *CodegenContext::entryAlloca(llvm::Type *type, const std::string &name) {
  llvm::BasicBlock &entry = frame().fn->getEntryBlock();
  llvm::IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
  return eb.CreateAlloca(type, nullptr, name);
}

llvm::BasicBlock *CodegenContext::newBlock(const std::string &name) {
  return llvm::BasicBlock::Create(ctx, name, frame().fn);
}

llvm::FunctionCallee CodegenContext::runtimeFunction(const std::string &name, llvm::FunctionType *type) {
  llvm::FunctionCallee callee = mod.getOrInsertFunction(name, type);
  if (auto *fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) fn->addFnAttr(llvm::Attribute::NoUnwind);
  return callee;
}

llvm::Value *CodegenContext::emitShuffle(ir::ShuffleOp op, llvm::Value *, llvm::Value *) {
  throw InternalError("codegen: warp shuffle '" + std::string(ir::shuffleOpName(op)) + "' outside a cuda kernel");
}

void CodegenContext::emitLoop(llvm::Value *begin, llvm::Value *end, const std::string &name,
                              const std::vector<llvm::Metadata *> &loopProps,
                              const std::function<void(llvm::Value *)> &body) {
  llvm::BasicBlock *pre = b.GetInsertBlock();
  llvm::BasicBlock *header = newBlock(name + ".header");
  llvm::BasicBlock *bodyBB = newBlock(name + ".body");
  llvm::BasicBlock *exit = newBlock(name + ".exit");
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode *iv = b.CreatePHI(b.getInt64Ty(), 2, name);
  iv->addIncoming(begin, pre);
  b.CreateCondBr(b.CreateICmpSLT(iv, end), bodyBB, exit);
  b.SetInsertPoint(bodyBB);
  body(iv);
  llvm::Value *next = b.CreateAdd(iv, b.getInt64(1), name + ".next", /*HasNUW=*/false, /*HasNSW=*/true);
  llvm::BranchInst *latch = b.CreateBr(header);
  iv->addIncoming(next, b.GetInsertBlock());
  if (!loopProps.empty()) {
    // A loop ID is a distinct node whose first operand is itself.
    std::vector<llvm::Metadata *> ops{nullptr};
    ops.insert(ops.end(), loopProps.begin(), loopProps.end());
    llvm::MDNode *id = llvm::MDNode::getDistinct(ctx, ops);
    id->replaceOperandWith(0, id);
    latch->setMetadata(llvm::LLVMContext::MD_loop, id);
  }
  b.SetInsertPoint(exit);
}

} // namespace tk::codegen
