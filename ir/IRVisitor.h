// Read-only walks of the three IR levels: subclass a visitor, override the
// hooks of the node kinds the pass cares about, and the defaults recurse
// into every child field of the others (Expr args, Load pad and pred,
// Reduce extents, loop bounds, mapping dims, let values, store indices,
// values and guards, conditions, intrinsic operands, prefetch indices).
// While walking, scope() holds the variables and allocated tensors bound
// around the current node (ir/BindingScope.h); enterScope/leaveScope mark
// where a binder's body starts and ends.
//
// A hook that replaces the default and still wants the children calls the
// base hook (or walkBody for just a binder's body). walkExpr / walkStmt are
// the entry points and the dispatchers: override them to see every node
// before (or after) its kind's hook.
#pragma once
#include "ir/BindingScope.h"
#include "ir/LoopIR.h"

namespace tk::ir {

class ExprVisitor {
public:
  virtual ~ExprVisitor() = default;
  // Visits `e` (null: nothing) through the hook of its kind.
  virtual void walkExpr(const Expr &e);
  const BindingScope &scope() const { return scope_; }

protected:
  virtual void visitLeaf(const Expr &) {}    // IntImm, FloatImm, BoolImm, Hole
  virtual void visitVar(const Expr &) {}
  virtual void visitOperation(const Expr &e); // Unary, Binary, Select, Call, Cast, Shuffle: args
  virtual void visitLoad(const Expr &e);      // indices, pad, pred
  // The body with the reduction variables bound, between enterReduce and
  // leaveReduce, then their extents (outside their scope: the order passes
  // have always seen, which fixes the order of what they collect).
  virtual void visitReduce(const Expr &e);
  virtual void enterReduce(const Expr &) {}
  virtual void leaveReduce(const Expr &) {}

  // Each of `es` through walkExpr.
  void walkExprs(const std::vector<Expr> &es);

  BindingScope scope_;
};

class LoopVisitor : public ExprVisitor {
public:
  // Visits `s` (null: nothing) through the hook of its kind.
  virtual void walkStmt(const LStmtPtr &s);

protected:
  virtual void visitBlock(const LStmt &s);     // stmts
  virtual void visitFor(const LStmt &s);       // min, extent; body with var bound
  virtual void visitStore(const LStmt &s);     // indices, value, pred
  virtual void visitAlloc(const LStmt &s);     // body with tensor allocated
  virtual void visitIf(const LStmt &s);        // cond, thenS, elseS
  virtual void visitLet(const LStmt &s);       // value; body with var bound
  virtual void visitCheck(const LStmt &s);     // cond
  virtual void visitBarrier(const LStmt &) {}
  virtual void visitIntrinsic(const LStmt &s); // operands
  virtual void visitPrefetch(const LStmt &s);  // indices
  virtual void visitDma(const LStmt &s);       // indices (origin), operands (extents), value (offset)
  virtual void visitDmaWait(const LStmt &) {}
  // Around the body of a For, Let or Alloc, with its binding in scope().
  virtual void enterScope(const LStmt &) {}
  virtual void leaveScope(const LStmt &) {}

  // The body of binder `s` (For, Let, Alloc): binds, enters, walks, leaves.
  void walkBody(const LStmt &s);
};

class MappingVisitor : public ExprVisitor {
public:
  // Visits `s` (null: nothing) through the hook of its kind.
  virtual void walkStmt(const MStmtPtr &s);

protected:
  virtual void visitBlock(const MStmt &s);     // stmts
  virtual void visitMapFor(const MStmt &s);    // mapping dims; body with vars bound
  virtual void visitSeqFor(const MStmt &s);    // begin, end; body with var bound
  // Allocates the tensor until the end of the enclosing block (or body):
  // enterScope here, leaveScope there.
  virtual void visitAlloc(const MStmt &s);
  virtual void visitStore(const MStmt &s);     // indices, value
  virtual void visitSync(const MStmt &) {}
  virtual void visitIf(const MStmt &s);        // cond, thenS, elseS
  virtual void visitIntrinsic(const MStmt &s); // operands
  virtual void visitPrefetch(const MStmt &s);  // indices
  // Around the body of a MapFor or SeqFor, and an Alloc's extent.
  virtual void enterScope(const MStmt &) {}
  virtual void leaveScope(const MStmt &) {}

  // The body of loop `s` (MapFor, SeqFor): binds, enters, walks, leaves.
  void walkBody(const MStmt &s);
  // A child statement (a branch, a body); allocations in it end with it.
  void walkNested(const MStmtPtr &s);

private:
  std::vector<const MStmt *> allocs_; // open allocations, innermost last
  void closeAllocs(size_t keep);
};

} // namespace tk::ir
