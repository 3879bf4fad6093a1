// Loop-IR expressions -> LLVM values in the current function of a
// CodegenContext. Values use CodegenContext::regType: f16/bf16 are computed
// in f32 and rounded only when stored or cast (like C's excess precision for
// _Float16), bool is i1. Guarded loads never touch memory out of range.
#pragma once
#include "backends/common/CodegenContext.h"

namespace tk::codegen {

// Translates `e` (no holes; every variable and tensor bound in `cg`) and
// returns a value of type cg.regType(e->type).
llvm::Value *lowerExpr(CodegenContext &cg, const ir::Expr &e);

// Lowers `e` and converts it to `to`.
llvm::Value *lowerExprAs(CodegenContext &cg, const ir::Expr &e, ir::ScalarType to);

// `a op b` for arithmetic operators (+ - * / % cdiv min max pow) on values
// of .tk type `t`, scalars or vectors of them: the one definition of each
// operator's semantics (float min/max are llvm.minnum/maxnum: NaN loses),
// shared by the vector emitters that fold values into accumulators.
llvm::Value *lowerArith(CodegenContext &cg, ir::BinOp op, llvm::Value *a, llvm::Value *b, ir::ScalarType t);

// Converts a register value of .tk type `from` to .tk type `to`
// (float -> int saturates; anything -> bool compares with zero).
llvm::Value *convertValue(CodegenContext &cg, llvm::Value *v, ir::ScalarType from, ir::ScalarType to);

// Address of t[indices...] (row-major, linearized with t's shape).
llvm::Value *elementAddress(CodegenContext &cg, const ir::TensorDecl &t,
                            const std::vector<ir::Expr> &indices);

// The row-major element offset of t[indices...] (i64), for callers that
// form their own (vector, not inbounds) addresses. A trailing index pair
// [e / S, e % S] over t's last extent S contributes e itself
// (ir/FlatIndex.h).
llvm::Value *linearIndex(CodegenContext &cg, const ir::TensorDecl &t, const std::vector<ir::Expr> &indices);

// Converts a value in storage form (cg.memType(dtype)) to register form.
llvm::Value *fromStorage(CodegenContext &cg, llvm::Value *raw, ir::ScalarType dtype);

// Stores the register value `v` (already of t's dtype) at `addr`.
void storeElement(CodegenContext &cg, llvm::Value *v, llvm::Value *addr, ir::ScalarType dtype);

// Runs `emit` only when `cond` (i1) holds; no value flows out.
void emitGuarded(CodegenContext &cg, llvm::Value *cond, const std::string &name,
                 const std::function<void()> &emit);

} // namespace tk::codegen
