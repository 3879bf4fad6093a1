// SemaIntrinsic: type-checks the GPU instructions of cuda kernels
// (docs/gpu.md): the statements `mma`, `ldmatrix`, `cp_async`, `atomic_add`
// ..., lowered to mapping-IR Intrinsic statements, and the warp-shuffle
// expressions `shfl_xor`, `shfl_down`, `shfl_up`, `shfl_idx`.
#pragma once
#include "frontend/AST.h"
#include "frontend/SemaScope.h"
#include "ir/Diagnostics.h"
#include "ir/MappingIR.h"

#include <functional>

namespace tk::sema {

struct IntrinsicContext {
  ir::TargetFamily target;
  bool inWarps; // the innermost worker mapping around the statement is `on warps`
  Scope &scope;
  DiagEngine &diags;
  // Lowers an integer expression (an index), reporting errors; null on error.
  std::function<ir::Expr(const ast::Expr &, const std::string &what)> intExpr;
  // Lowers any value expression (atomic_add's operand); null on error.
  std::function<ir::Expr(const ast::Expr &)> valueExpr;
};

// Takes an AST statement of kind Intrinsic; returns an MStmt of kind
// Intrinsic whose operands are Loads of the first element each operand
// covers, or null after reporting every problem at its source location
// (unknown name, non-cuda kernel, outside a warps mapping, operand count,
// scopes, dtypes, fragment lengths).
ir::MStmtPtr checkIntrinsic(const ast::Stmt &s, const IntrinsicContext &cx);

// True for the names of the warp-shuffle functions (shfl_xor, ...).
bool isShuffleName(const std::string &name);

// Where a shuffle call is written: `inKernel` false for op bodies and
// signatures; `inLanes` when a task mapping on threads or warps encloses it.
struct ShuffleContext {
  bool inKernel;
  ir::TargetFamily target;
  bool inLanes;
  DiagEngine &diags;
};

// Checks the call `e` (a shuffle name) with its lowered arguments: a cuda
// kernel, inside a threads/warps mapping, two arguments, an f32 or i32
// value, an integer lane operand (a constant one in 0..31). Returns the
// Shuffle expression, or null after a located error.
ir::Expr checkShuffle(const ast::Expr &e, std::vector<ir::Expr> args, const ShuffleContext &cx);

} // namespace tk::sema
