// SemaExpr: type-checks an AST expression and lowers it to an ir::Expr.
// The same rules serve op signatures (shapes, `where`), op bodies (index
// notation with reductions and range inference) and kernels (loop
// variables, holes, `let`); ExprEnv::mode says which names and forms are
// allowed where.
#pragma once
#include "frontend/AST.h"
#include "frontend/SemaScope.h"
#include "ir/Diagnostics.h"

#include <functional>

namespace tk::sema {

// An index variable used alone as the index of a tensor dimension: the
// variable ranges over that dimension's extent.
struct RangeUse {
  std::string var;
  ir::Expr extent;
  SourceLoc loc;
  std::string what; // "dimension 2 of A"
  // In an access with `else`: out-of-range reads are defined, so the use
  // only supplies a range when nothing else does and never conflicts.
  bool guarded = false;
};

struct ExprEnv {
  enum class Mode { Signature, OpBody, Kernel } mode;
  Scope &scope;
  DiagEngine &diags;
  std::vector<RangeUse> uses;                           // OpBody: filled while lowering
  std::function<ir::Expr(const ast::Expr &)> makeHole;  // Kernel: registers a hole
  // Kernel: its target, and whether a task mapping on threads or warps
  // encloses the expression (warp shuffles need both, SemaIntrinsic).
  ir::TargetFamily target = ir::TargetFamily::Cpu;
  bool inLanes = false;
};

// Returns the lowered expression, or null after reporting an error.
ir::Expr lowerExpr(const ast::Expr &e, ExprEnv &env);
// Lowers an expression that must be an integer (extents, indices, bounds):
// `what` names it in the error ("extent", "index", ...).
ir::Expr lowerIntExpr(const ast::Expr &e, ExprEnv &env, const std::string &what);
// Lowers a condition that must be boolean.
ir::Expr lowerCondExpr(const ast::Expr &e, ExprEnv &env, const std::string &what);

// Converts `value` for a store into a tensor of type `dtype`: literals are
// retyped, other values cast. Reports (and returns null for) an implicit
// float-to-integer or number-to-bool narrowing.
ir::Expr convertForStore(ir::Expr value, ir::ScalarType dtype, const std::string &tensor, SourceLoc loc,
                         DiagEngine &diags);

// Reconciles the uses of index variable `var` (the first one sets the
// range); reports a shape mismatch at each use that disagrees. `declared`,
// when non-null, is the extent the variable must have (the dimension of an
// assigned tensor whose shape is known), described by `declaredWhat`.
// Returns the extent, or null after an error (none inferable included).
ir::Expr resolveRange(const std::string &var, SourceLoc varLoc, const std::vector<RangeUse> &uses,
                      const ir::Expr &declared, const std::string &declaredWhat, bool reduction,
                      DiagEngine &diags);

} // namespace tk::sema
