#include "ir/VerifyLoopIR.h"

#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "ir/VerifyExpr.h"

#include <fmt/format.h>

namespace tk::ir {

namespace {

// Checks each statement's own fields against the op's names (`outer_`) and
// what the enclosing loops, lets and allocs bind (the walk's scope()).
class LoopVerifier : public LoopVisitor {
public:
  explicit LoopVerifier(VerifyScope outer) : outer_(std::move(outer)) {}

  void walkStmt(const LStmtPtr &s) override {
    if (!s) verifyFail(outer_, "null statement");
    LoopVisitor::walkStmt(s);
  }

protected:
  void visitFor(const LStmt &s) override {
    expr(s.min);
    expr(s.extent);
    if (s.forKind == ForKind::Parallel && !s.worker) verifyFail(outer_, "parallel loop without a worker kind");
    walkBody(s);
  }

  void visitLet(const LStmt &s) override {
    expr(s.value);
    walkBody(s);
  }

  void visitAlloc(const LStmt &s) override {
    if (!s.tensor) verifyFail(outer_, "alloc without a tensor");
    for (const Expr &d : s.tensor->shape) expr(d);
    walkBody(s);
  }

  void visitStore(const LStmt &s) override {
    verifyStore(s.tensor, s.indices, s.value, outer_, scope());
    if (s.pred) expr(s.pred);
  }

  void visitIf(const LStmt &s) override {
    expr(s.cond);
    walkStmt(s.thenS);
    if (s.elseS) walkStmt(s.elseS);
  }

  void visitCheck(const LStmt &s) override {
    expr(s.cond);
    if ((s.errorCode < 1 || s.errorCode > 3) && !(s.tensor && s.errorCode == 8)) // 8: a write check
      verifyFail(outer_, fmt::format("check with error code {}", s.errorCode));
  }

  // The element it names is checked as a read would be.
  void visitPrefetch(const LStmt &s) override { expr(load(s.tensor, s.indices)); }

  // A box of a main-memory tensor and an LDM buffer allocated around it.
  void visitDma(const LStmt &s) override {
    if (!s.tensor || !s.buffer) verifyFail(outer_, "dma without a tensor or a buffer");
    if (s.tensor->scope != Scope::Global || s.buffer->scope != Scope::Ldm)
      verifyFail(outer_, fmt::format("dma between '{}' and '{}': needs a global tensor and an ldm buffer",
                                     s.tensor->name, s.buffer->name));
    if (s.indices.size() != s.tensor->rank() || s.operands.size() != s.tensor->rank())
      verifyFail(outer_, fmt::format("dma of '{}': origin and extents need one entry per dimension", s.tensor->name));
    bool allocated = false;
    for (const TensorPtr &t : scope().tensors()) allocated |= t == s.buffer;
    if (!allocated) verifyFail(outer_, fmt::format("dma into '{}' outside its alloc", s.buffer->name));
    for (const Expr &e : s.indices) expr(e);
    for (const Expr &e : s.operands) expr(e);
    if (s.value) expr(s.value);
  }

  void visitDmaWait(const LStmt &s) override {
    bool allocated = false;
    for (const TensorPtr &t : scope().tensors()) allocated |= t == s.buffer;
    if (!s.buffer || !allocated) verifyFail(outer_, "dma_wait outside its buffer's alloc");
  }

  void visitIntrinsic(const LStmt &s) override { verifyIntrinsicOperands(s.intrinsic, s.operands, outer_, scope()); }

private:
  void expr(const Expr &e) { verifyExpr(e, outer_, scope()); }

  VerifyScope outer_;
};

} // namespace

void verifyLoopIR(const LoweredFunc &f, bool reductionsLowered) {
  if (!f.op) throw InternalError("loop IR function " + f.name + " has no op");
  VerifyScope scope = opScope(*f.op, "loop IR of function " + f.name);
  scope.allowReduce = !reductionsLowered;
  LoopVerifier(std::move(scope)).walkStmt(f.body);
}

} // namespace tk::ir
