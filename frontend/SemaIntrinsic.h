// SemaIntrinsic: type-checks the warp-collective tensor-core statements of
// cuda kernels (`mma(d, a, b);`, `ldmatrix(f, S[r, c]);`, docs/gpu.md) and
// lowers them to mapping-IR Intrinsic statements.
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
};

// Takes an AST statement of kind Intrinsic; returns an MStmt of kind
// Intrinsic whose operands are Loads of the first element each operand
// covers, or null after reporting every problem at its source location
// (unknown name, non-cuda kernel, outside a warps mapping, operand count,
// scopes, dtypes, fragment lengths).
ir::MStmtPtr checkIntrinsic(const ast::Stmt &s, const IntrinsicContext &cx);

} // namespace tk::sema
