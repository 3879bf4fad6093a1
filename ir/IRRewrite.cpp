// The std::function helpers, each a small mutator or visitor: the IR has
// one recursion per level (ir/IRMutator.cpp, ir/IRVisitor.cpp).
#include "ir/IRRewrite.h"

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"

namespace tk::ir {

namespace {

class PostOrder : public ExprMutator {
public:
  explicit PostOrder(const ExprFn &post) : post_(post) {}
  Expr mutateExpr(const Expr &e) override { return e ? post_(ExprMutator::mutateExpr(e)) : e; }

private:
  const ExprFn &post_;
};

// Passes each top-level expression of a statement through `fn` (which
// sees it whole: no recursion here) and statement tensors through
// `tensorFn`.
template <class Base> class RewriteExprs : public Base {
public:
  RewriteExprs(const ExprFn &fn, const TensorFn &tensorFn) : fn_(fn), tensorFn_(tensorFn) {}
  Expr mutateExpr(const Expr &e) override { return e ? fn_(e) : e; }
  TensorPtr mutateTensor(const TensorPtr &t) override { return tensorFn_ && t ? tensorFn_(t) : t; }

private:
  const ExprFn &fn_;
  const TensorFn &tensorFn_;
};

class PostOrderStmts : public LoopMutator {
public:
  explicit PostOrderStmts(const std::function<LStmtPtr(const LStmtPtr &)> &post) : post_(post) {}
  Expr mutateExpr(const Expr &e) override { return e; }
  LStmtPtr mutateStmt(const LStmtPtr &s) override {
    if (!s) return s;
    LStmtPtr n = LoopMutator::mutateStmt(s);
    return post_(n == s ? std::make_shared<LStmt>(*s) : n);
  }

private:
  const std::function<LStmtPtr(const LStmtPtr &)> &post_;
};

template <class Base, class Ptr, class Node> class PreOrderStmts : public Base {
public:
  explicit PreOrderStmts(const std::function<void(const Node &)> &fn) : fn_(fn) {}
  void walkExpr(const Expr &) override {}
  void walkStmt(const Ptr &s) override {
    if (!s) return;
    fn_(*s);
    Base::walkStmt(s);
  }

private:
  const std::function<void(const Node &)> &fn_;
};

} // namespace

Expr transformExpr(const Expr &e, const ExprFn &post) { return PostOrder(post).mutateExpr(e); }

MStmtPtr rewriteMStmt(const MStmtPtr &s, const ExprFn &fn, const TensorFn &tensorFn) {
  return RewriteExprs<MappingMutator>(fn, tensorFn).mutateStmt(s);
}

LStmtPtr rewriteLStmt(const LStmtPtr &s, const ExprFn &fn, const TensorFn &tensorFn) {
  return RewriteExprs<LoopMutator>(fn, tensorFn).mutateStmt(s);
}

LStmtPtr transformLStmt(const LStmtPtr &s, const std::function<LStmtPtr(const LStmtPtr &)> &post) {
  return PostOrderStmts(post).mutateStmt(s);
}

void visitMStmt(const MStmtPtr &s, const std::function<void(const MStmt &)> &fn) {
  PreOrderStmts<MappingVisitor, MStmtPtr, MStmt>(fn).walkStmt(s);
}

void visitLStmt(const LStmtPtr &s, const std::function<void(const LStmt &)> &fn) {
  PreOrderStmts<LoopVisitor, LStmtPtr, LStmt>(fn).walkStmt(s);
}

void visitLExprs(const LStmtPtr &s, const std::function<void(const Expr &)> &fn) {
  visitLStmt(s, [&](const LStmt &st) {
    for (const Expr &e : {st.min, st.extent, st.value, st.pred, st.cond})
      if (e) fn(e);
    for (const std::vector<Expr> *es : {&st.indices, &st.operands})
      for (const Expr &e : *es)
        if (e) fn(e);
  });
}

} // namespace tk::ir
