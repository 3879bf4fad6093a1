// Rewriting walks of the three IR levels, the counterpart of ir/IRVisitor.h:
// subclass a mutator, override the hooks of the node kinds the pass
// rewrites, and the defaults rebuild the others from their mutated child
// fields (every field the visitor walks). A node none of whose children
// changed is returned as is, the same pointer, and the input is never
// modified (kernels and functions are shared): a hook that changes a node
// changes a copy. scope() holds the variables and tensors bound around the
// current node (ir/BindingScope.h), as for the visitor.
//
// mutateTensor sees every tensor reference (a Load's tensor, the tensor a
// statement stores, allocates, prefetches or checks); the default keeps it.
#pragma once
#include "ir/BindingScope.h"
#include "ir/LoopIR.h"

namespace tk::ir {

class ExprMutator {
public:
  virtual ~ExprMutator() = default;
  // `e` (null: null) through the hook of its kind.
  virtual Expr mutateExpr(const Expr &e);
  const BindingScope &scope() const { return scope_; }

protected:
  virtual Expr mutateLeaf(const Expr &e) { return e; } // IntImm, FloatImm, BoolImm, Hole
  virtual Expr mutateVar(const Expr &e) { return e; }
  virtual Expr mutateOperation(const Expr &e); // Unary, Binary, Select, Call, Cast, Shuffle: args
  virtual Expr mutateLoad(const Expr &e);      // tensor, indices, pad, pred
  // The body with the reduction variables bound, between enterReduce and
  // leaveReduce, then their extents (outside their scope: the order passes
  // have always seen, which fixes the order of what they collect) (both
  // given the original node).
  virtual Expr mutateReduce(const Expr &e);
  virtual void enterReduce(const Expr &) {}
  virtual void leaveReduce(const Expr &) {}
  virtual TensorPtr mutateTensor(const TensorPtr &t) { return t; }

  // Each of `es` through mutateExpr; sets `changed` when one differs.
  std::vector<Expr> mutateExprs(const std::vector<Expr> &es, bool &changed);

  BindingScope scope_;
};

class LoopMutator : public ExprMutator {
public:
  // `s` (null: null) through the hook of its kind.
  virtual LStmtPtr mutateStmt(const LStmtPtr &s);

protected:
  virtual LStmtPtr mutateBlock(const LStmtPtr &s);     // stmts
  virtual LStmtPtr mutateFor(const LStmtPtr &s);       // min, extent; body with var bound
  virtual LStmtPtr mutateStore(const LStmtPtr &s);     // tensor, indices, value, pred
  virtual LStmtPtr mutateAlloc(const LStmtPtr &s);     // tensor; body with it allocated
  virtual LStmtPtr mutateIf(const LStmtPtr &s);        // cond, thenS, elseS
  virtual LStmtPtr mutateLet(const LStmtPtr &s);       // value; body with var bound
  virtual LStmtPtr mutateCheck(const LStmtPtr &s);     // tensor, cond
  virtual LStmtPtr mutateBarrier(const LStmtPtr &s) { return s; }
  virtual LStmtPtr mutateIntrinsic(const LStmtPtr &s); // operands
  virtual LStmtPtr mutatePrefetch(const LStmtPtr &s);  // tensor, indices
  virtual LStmtPtr mutateDma(const LStmtPtr &s);       // tensor, buffer, indices, operands, value
  virtual LStmtPtr mutateDmaWait(const LStmtPtr &s);   // buffer
  // Around the body of a For, Let or Alloc (the original node), with its
  // binding in scope().
  virtual void enterScope(const LStmt &) {}
  virtual void leaveScope(const LStmt &) {}

  // The body of binder `s` (For, Let, Alloc): binds, enters, mutates, leaves.
  LStmtPtr mutateBody(const LStmt &s);
};

class MappingMutator : public ExprMutator {
public:
  // `s` (null: null) through the hook of its kind.
  virtual MStmtPtr mutateStmt(const MStmtPtr &s);

protected:
  virtual MStmtPtr mutateBlock(const MStmtPtr &s);     // stmts
  virtual MStmtPtr mutateMapFor(const MStmtPtr &s);    // mapping dims; body with vars bound
  virtual MStmtPtr mutateSeqFor(const MStmtPtr &s);    // begin, end; body with var bound
  // The tensor, allocated until the end of the enclosing block (or body):
  // enterScope here, leaveScope there.
  virtual MStmtPtr mutateAlloc(const MStmtPtr &s);
  virtual MStmtPtr mutateStore(const MStmtPtr &s);     // tensor, indices, value
  virtual MStmtPtr mutateSync(const MStmtPtr &s) { return s; }
  virtual MStmtPtr mutateIf(const MStmtPtr &s);        // cond, thenS, elseS
  virtual MStmtPtr mutateIntrinsic(const MStmtPtr &s); // operands
  virtual MStmtPtr mutatePrefetch(const MStmtPtr &s);  // tensor, indices
  // Around the body of a MapFor or SeqFor, and an Alloc's extent (the
  // original node).
  virtual void enterScope(const MStmt &) {}
  virtual void leaveScope(const MStmt &) {}

  // The body of loop `s` (MapFor, SeqFor): binds, enters, mutates, leaves.
  MStmtPtr mutateBody(const MStmt &s);
  // A child statement (a branch, a body); allocations in it end with it.
  MStmtPtr mutateNested(const MStmtPtr &s);

private:
  std::vector<const MStmt *> allocs_; // open allocations, innermost last
  void closeAllocs(size_t keep);
};

} // namespace tk::ir
