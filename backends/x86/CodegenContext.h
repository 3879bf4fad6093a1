// CodegenContext: the state shared while one loop-IR module is translated to
// LLVM IR — the LLVM module and builder, the function being generated (a
// kernel or an outlined parallel body), its variable and buffer bindings and
// the heap buffers an early `return status` must free. The translation steps
// (expressions, statements, parallel outlining, kernel signatures) are free
// functions over this state, one file each.
#pragma once
#include "backends/x86/X86Backend.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tk::x86 {

// A variable's value in the current function and the .tk type it holds.
struct VarBinding {
  llvm::Value *value = nullptr;
  ir::ScalarType type = ir::ScalarType::I64;
};

// One LLVM function under construction.
struct FunctionFrame {
  llvm::Function *fn = nullptr;
  // Outlined parallel bodies return void; a failed Check stores its status
  // here (an i32 shared with the caller) instead of returning it.
  llvm::Value *statusOut = nullptr;
  // malloc'd buffers live at the insertion point, innermost last: every
  // early exit frees them so a failed Check never leaks.
  std::vector<llvm::Value *> liveHeap;
  std::vector<std::map<std::string, VarBinding>> scopes;
  std::map<const ir::TensorDecl *, llvm::Value *> buffers;
};

class CodegenContext {
public:
  CodegenContext(llvm::Module &m, const CpuTarget &target, DiagEngine &diags);

  llvm::LLVMContext &ctx;
  llvm::Module &mod;
  llvm::IRBuilder<> b;
  const CpuTarget &target;
  DiagEngine &diags;
  std::string kernelName; // names outlined bodies `<kernel>.par<N>`
  int outlinedCount = 0;
  std::vector<FunctionFrame> frames;

  FunctionFrame &frame() { return frames.back(); }

  // Register type of a value (f16/bf16 are computed in f32, bool is i1) and
  // storage type of a tensor element (f16/bf16 are 16-bit patterns, bool a byte).
  llvm::Type *regType(ir::ScalarType t);
  llvm::Type *memType(ir::ScalarType t);

  void pushScope() { frame().scopes.emplace_back(); }
  void popScope() { frame().scopes.pop_back(); }
  void bind(const std::string &name, VarBinding v) { frame().scopes.back()[name] = v; }
  const VarBinding *lookup(const std::string &name) const;
  llvm::Value *buffer(const ir::TensorDecl &t) const; // throws InternalError when unbound

  // Adds the function attributes every generated function carries (target
  // CPU/features so the optimizer's TTI and codegen agree, nounwind).
  void setFunctionAttributes(llvm::Function *fn);
  // An alloca in the entry block of the current function (so it is
  // allocated once per call, not once per loop iteration).
  llvm::AllocaInst *entryAlloca(llvm::Type *type, const std::string &name);
  llvm::BasicBlock *newBlock(const std::string &name);
  llvm::FunctionCallee runtimeFunction(const std::string &name, llvm::FunctionType *type);

  // Emits `for (iv = begin; iv < end; ++iv) body(iv)` with the given
  // llvm.loop properties (none: no loop metadata).
  void emitLoop(llvm::Value *begin, llvm::Value *end, const std::string &name,
                const std::vector<llvm::Metadata *> &loopProps,
                const std::function<void(llvm::Value *iv)> &body);
  // Frees the live heap buffers and leaves the function with `status`. The
  // current block is then terminated: the caller moves the builder on.
  void emitEarlyExit(llvm::Value *status);
  // malloc(bytes) with a null check that exits with status 3.
  llvm::Value *emitCheckedMalloc(llvm::Value *bytes, const std::string &name);
  void emitFree(llvm::Value *ptr);
};

// ABI status codes (docs/abi.md).
constexpr int kStatusOutOfMemory = 3;

} // namespace tk::x86
