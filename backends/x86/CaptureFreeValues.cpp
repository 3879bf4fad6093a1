#include "backends/x86/CaptureFreeValues.h"

#include "ir/IRVisitor.h"

namespace tk::x86 {

namespace {

// Every expression and tensor reference of a statement tree, in the
// visitor's order (which fixes the outlined function's parameter order).
class CaptureWalk final : public ir::LoopVisitor {
public:
  CaptureWalk(Captures &cap, CodegenContext &cg) : cap_(cap), cg_(cg) {}
  void walkExpr(const ir::Expr &e) override { cap_.expr(cg_, e); }

protected:
  void visitStore(const ir::LStmt &s) override { withTensor(s, [&] { LoopVisitor::visitStore(s); }); }
  void visitAlloc(const ir::LStmt &s) override { withTensor(s, [&] { LoopVisitor::visitAlloc(s); }); }
  void visitPrefetch(const ir::LStmt &s) override { withTensor(s, [&] { LoopVisitor::visitPrefetch(s); }); }
  // A write check of --check-mappings names its record in `tensor`.
  void visitCheck(const ir::LStmt &s) override { withTensor(s, [&] { LoopVisitor::visitCheck(s); }); }

private:
  template <typename F> void withTensor(const ir::LStmt &s, F children) {
    children();
    if (s.tensor) cap_.tensor(cg_, *s.tensor);
  }
  Captures &cap_;
  CodegenContext &cg_;
};

} // namespace

void Captures::expr(CodegenContext &cg, const ir::Expr &e) {
  ir::visitExpr(e, [&](const ir::Expr &n) {
    if (n->kind == ir::ExprKind::Var && cg.lookup(n->name) && seenVars_.insert(n->name).second)
      vars.push_back(n->name);
    if (n->kind == ir::ExprKind::Load) tensor(cg, *n->tensor);
  });
}

void Captures::tensor(CodegenContext &cg, const ir::TensorDecl &t) {
  for (const ir::Expr &d : t.shape) expr(cg, d);
  if (cg.frame().buffers.count(&t) && seenTensors_.insert(&t).second) tensors.push_back(&t);
}

void Captures::stmt(CodegenContext &cg, const ir::LStmtPtr &s) {
  CaptureWalk walk(*this, cg);
  walk.walkStmt(s);
}

void Captures::stmt(CodegenContext &cg, const ir::LStmt &s) {
  // A non-owning pointer (aliasing constructor, empty owner): the visitor
  // takes statements by pointer, and `s` outlives the walk.
  stmt(cg, ir::LStmtPtr(ir::LStmtPtr(), const_cast<ir::LStmt *>(&s)));
}

} // namespace tk::x86
