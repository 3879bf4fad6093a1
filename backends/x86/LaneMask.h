// Lane masks: a guard that varies along a vectorized loop becomes one
// vector of booleans per vector of iterations instead of a branch per
// element. Shared by the register tiles (EmitRegisterTile.h) and the
// reductions into one element (VectorReduction.h).
#pragma once
#include "backends/x86/CodegenContext.h"

#include <optional>
#include <string>
#include <vector>

namespace tk::x86 {

// The constant c when `e` is an integer expression c*var + (terms that do
// not mention var) — 0 when var does not appear — else nullopt (var inside
// a product, division, min, ...).
std::optional<int64_t> laneStride(const ir::Expr &e, const std::string &var);

// True when `pred` (null = always true) can become a lane mask along `var`:
// a conjunction whose terms either ignore `var` or compare c*var + .. (a
// constant 0 < |c| <= 2^24, so a strided window's `0 <= 2*x + s - pad`
// too) with an expression that ignores it.
bool laneMaskable(const ir::Expr &pred, const std::string &var);

// True when every conjunct of `pred` (null: none) that mentions `var` is a
// comparison of two expressions affine in it: over an interval of `var`
// such a conjunct holds everywhere when it holds at both ends (the
// register tiles' test that a block is in range over a whole loop).
bool affineIn(const ir::Expr &pred, const std::string &var);

// The least exclusive upper end on `var` that a conjunct of `pred` of the
// form var + .. < e or var + .. <= e (or e > var + .., e >= var + ..; var
// with coefficient 1, e ignoring it) puts, lowered at the insertion point
// with var = 0 in the other terms; null when no conjunct does. Conjuncts
// that mention a name in `unbound` (variables not bound there) are left
// out. Past the end `pred` is false.
llvm::Value *emitLaneEnd(CodegenContext &cg, const ir::Expr &pred, const std::string &var,
                         const std::vector<std::string> &unbound);

// The mask of `lanes` lanes where `pred` holds with `var` at its bound value
// plus the lane number (null pred: all lanes). Requires laneMaskable(pred,
// var) and `var` bound in `cg` to the first lane's value.
llvm::Value *emitLaneMask(CodegenContext &cg, const ir::Expr &pred, const std::string &var, int lanes);

} // namespace tk::x86
