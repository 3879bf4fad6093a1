// Function-style rewriting of expressions and statements, for passes that
// need no scope: small mutators and visitors (ir/IRMutator.h,
// ir/IRVisitor.h) over a std::function. Every rewrite rebuilds only what
// changes and leaves the input untouched, so a kernel shared by several
// exports is never modified.
#pragma once
#include "ir/LoopIR.h"

#include <functional>

namespace tk::ir {

using ExprFn = std::function<Expr(const Expr &)>;
using TensorFn = std::function<TensorPtr(const TensorPtr &)>;

// Rebuilds `e` bottom-up: children first, then `post` on the rebuilt node.
// Reduce variable extents, Load pads and predicates are children too.
Expr transformExpr(const Expr &e, const ExprFn &post);

// Rebuilds a mapping-IR statement tree, passing every expression (mapping
// dims, loop bounds, indices, values, conditions, intrinsic operands) through `fn` and every
// statement tensor (Store/Alloc/Prefetch targets) through `tensorFn` when
// given; `fn` sees each expression whole and does its own recursion.
MStmtPtr rewriteMStmt(const MStmtPtr &s, const ExprFn &fn, const TensorFn &tensorFn = nullptr);

// The same for loop IR (For bounds, Store indices/value/pred, Let values,
// If/Check conditions, intrinsic operands, prefetch indices).
LStmtPtr rewriteLStmt(const LStmtPtr &s, const ExprFn &fn, const TensorFn &tensorFn = nullptr);

// Rebuilds a loop-IR tree bottom-up: a node's children (block statements,
// loop body, branches) first, then `post` on the rebuilt node — a fresh
// copy `post` may change in place — whose result takes its place.
LStmtPtr transformLStmt(const LStmtPtr &s, const std::function<LStmtPtr(const LStmtPtr &)> &post);

// Calls `fn` on every statement of the tree (pre-order).
void visitMStmt(const MStmtPtr &s, const std::function<void(const MStmt &)> &fn);
void visitLStmt(const LStmtPtr &s, const std::function<void(const LStmt &)> &fn);
// Calls `fn` on every expression the statements of the tree hold directly
// (loop bounds, values, guards, conditions, indices, operands; null ones
// skipped); `fn` sees each whole and does its own recursion.
void visitLExprs(const LStmtPtr &s, const std::function<void(const Expr &)> &fn);

} // namespace tk::ir
