// CodegenContext: the state shared while loop IR is translated to LLVM IR,
// independent of the target — the LLVM module and builder, the function
// being generated, its variable and buffer bindings. Each backend derives
// its own context and supplies what differs between targets: math
// functions (libm calls on the CPU, hardware approximations on NVPTX).
// Expression lowering (backends/common/LowerExprToLLVM.h) works on this
// base, so every backend computes values the same way.
#pragma once
#include "ir/Diagnostics.h"
#include "ir/LoopIR.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tk::codegen {

// A variable's value in the current function and the .tk type it holds.
struct VarBinding {
  llvm::Value *value = nullptr;
  ir::ScalarType type = ir::ScalarType::I64;
};

// One LLVM function under construction.
struct FunctionFrame {
  llvm::Function *fn = nullptr;
  // For functions that run on a CPU worker and cannot return the status
  // themselves (x86 outlined parallel bodies): a failed Check stores its
  // status here (an i32 shared with the caller) instead of returning it.
  llvm::Value *statusOut = nullptr;
  // malloc'd buffers live at the insertion point, innermost last: every
  // early exit frees them so a failed Check never leaks.
  std::vector<llvm::Value *> liveHeap;
  std::vector<std::map<std::string, VarBinding>> scopes;
  std::map<const ir::TensorDecl *, llvm::Value *> buffers;
  // Set for functions called only after the kernel's entry checks passed
  // (x86 outlined bodies and tiles): tensor extents computed from the
  // function's arguments are then computed once, in its entry block
  // (linearIndex), instead of under every guard that addresses the tensor,
  // where a division in them (a convolution's `/ stride`) could not be
  // hoisted and LLVM scalarised it per vector lane.
  bool extentsAtEntry = false;
  std::map<std::pair<const ir::TensorDecl *, size_t>, llvm::Value *> extents;
};

class CodegenContext {
public:
  CodegenContext(llvm::Module &m, DiagEngine &diags);
  virtual ~CodegenContext() = default;

  llvm::LLVMContext &ctx;
  llvm::Module &mod;
  llvm::IRBuilder<> b;
  DiagEngine &diags;
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

  // Target math: `f(x)` for a float register value x (f32 or f64), and
  // pow(a, b) for float a, b of the same type.
  virtual llvm::Value *emitMath(ir::MathFn f, llvm::Value *x) = 0;
  virtual llvm::Value *emitPow(llvm::Value *a, llvm::Value *b) = 0;
  // Warp shuffle of a 32-bit value (f32 or i32 register) with an i32 lane
  // operand. Sema admits shuffles only in cuda kernels, so only the NVPTX
  // context implements it; elsewhere it is an internal error.
  virtual llvm::Value *emitShuffle(ir::ShuffleOp op, llvm::Value *value, llvm::Value *lane);
  // Whether `x + a * b` on floats becomes llvm.fmuladd (one rounding where
  // the target fuses). GPUs issue a fused multiply-add at the rate of a
  // multiply, so keeping the two apart there halves a contraction's speed.
  virtual bool fuseMulAdd() const { return false; }
};

} // namespace tk::codegen
