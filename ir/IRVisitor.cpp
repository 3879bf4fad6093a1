#include "ir/IRVisitor.h"

namespace tk::ir {

// ---- expressions ----

void ExprVisitor::walkExpr(const Expr &e) {
  if (!e) return;
  switch (e->kind) {
  case ExprKind::IntImm:
  case ExprKind::FloatImm:
  case ExprKind::BoolImm:
  case ExprKind::Hole: return visitLeaf(e);
  case ExprKind::Var: return visitVar(e);
  case ExprKind::Unary:
  case ExprKind::Binary:
  case ExprKind::Select:
  case ExprKind::Call:
  case ExprKind::Cast:
  case ExprKind::Shuffle: return visitOperation(e);
  case ExprKind::Load: return visitLoad(e);
  case ExprKind::Reduce: return visitReduce(e);
  }
}

void ExprVisitor::walkExprs(const std::vector<Expr> &es) {
  for (const Expr &e : es) walkExpr(e);
}

void ExprVisitor::visitOperation(const Expr &e) { walkExprs(e->args); }

void ExprVisitor::visitLoad(const Expr &e) {
  walkExprs(e->args);
  walkExpr(e->pad);
  walkExpr(e->pred);
}

void ExprVisitor::visitReduce(const Expr &e) {
  size_t outer = scope_.vars().size();
  for (const IndexVar &v : e->rvars) scope_.bindVar(v.name, BindingKind::Reduce);
  enterReduce(e);
  walkExprs(e->args);
  leaveReduce(e);
  scope_.popVars(outer);
  for (const IndexVar &v : e->rvars) walkExpr(v.extent);
}

// ---- loop IR ----

void LoopVisitor::walkStmt(const LStmtPtr &s) {
  if (!s) return;
  switch (s->kind) {
  case LStmt::Kind::Block: return visitBlock(*s);
  case LStmt::Kind::For: return visitFor(*s);
  case LStmt::Kind::Store: return visitStore(*s);
  case LStmt::Kind::Alloc: return visitAlloc(*s);
  case LStmt::Kind::If: return visitIf(*s);
  case LStmt::Kind::Let: return visitLet(*s);
  case LStmt::Kind::Check: return visitCheck(*s);
  case LStmt::Kind::Barrier: return visitBarrier(*s);
  case LStmt::Kind::Intrinsic: return visitIntrinsic(*s);
  case LStmt::Kind::Prefetch: return visitPrefetch(*s);
  case LStmt::Kind::Dma: return visitDma(*s);
  case LStmt::Kind::DmaWait: return visitDmaWait(*s);
  }
}

void LoopVisitor::walkBody(const LStmt &s) {
  size_t vars = scope_.vars().size(), tensors = scope_.tensors().size();
  if (s.kind == LStmt::Kind::For) scope_.bindVar(s.var, BindingKind::Loop);
  if (s.kind == LStmt::Kind::Let) scope_.bindVar(s.var, BindingKind::Let);
  if (s.kind == LStmt::Kind::Alloc) scope_.bindTensor(s.tensor);
  enterScope(s);
  walkStmt(s.body);
  leaveScope(s);
  scope_.popVars(vars);
  scope_.popTensors(tensors);
}

void LoopVisitor::visitBlock(const LStmt &s) {
  for (const LStmtPtr &c : s.stmts) walkStmt(c);
}

void LoopVisitor::visitFor(const LStmt &s) {
  walkExpr(s.min);
  walkExpr(s.extent);
  walkBody(s);
}

void LoopVisitor::visitStore(const LStmt &s) {
  walkExprs(s.indices);
  walkExpr(s.value);
  walkExpr(s.pred);
}

void LoopVisitor::visitAlloc(const LStmt &s) { walkBody(s); }

void LoopVisitor::visitIf(const LStmt &s) {
  walkExpr(s.cond);
  walkStmt(s.thenS);
  walkStmt(s.elseS);
}

void LoopVisitor::visitLet(const LStmt &s) {
  walkExpr(s.value);
  walkBody(s);
}

void LoopVisitor::visitCheck(const LStmt &s) { walkExpr(s.cond); }
void LoopVisitor::visitIntrinsic(const LStmt &s) { walkExprs(s.operands); }
void LoopVisitor::visitPrefetch(const LStmt &s) { walkExprs(s.indices); }
void LoopVisitor::visitDma(const LStmt &s) {
  walkExprs(s.indices);
  walkExprs(s.operands);
  walkExpr(s.value);
}

// ---- mapping IR ----

void MappingVisitor::walkStmt(const MStmtPtr &s) {
  if (!s) return;
  switch (s->kind) {
  case MStmt::Kind::Block: return visitBlock(*s);
  case MStmt::Kind::MapFor: return visitMapFor(*s);
  case MStmt::Kind::SeqFor: return visitSeqFor(*s);
  case MStmt::Kind::Alloc: return visitAlloc(*s);
  case MStmt::Kind::Store: return visitStore(*s);
  case MStmt::Kind::Sync: return visitSync(*s);
  case MStmt::Kind::If: return visitIf(*s);
  case MStmt::Kind::Intrinsic: return visitIntrinsic(*s);
  case MStmt::Kind::Prefetch: return visitPrefetch(*s);
  }
}

void MappingVisitor::closeAllocs(size_t keep) {
  while (allocs_.size() > keep) {
    leaveScope(*allocs_.back());
    allocs_.pop_back();
    scope_.popTensors(scope_.tensors().size() - 1);
  }
}

void MappingVisitor::walkNested(const MStmtPtr &s) {
  size_t open = allocs_.size();
  walkStmt(s);
  closeAllocs(open);
}

void MappingVisitor::walkBody(const MStmt &s) {
  size_t vars = scope_.vars().size();
  if (s.kind == MStmt::Kind::SeqFor) scope_.bindVar(s.var, BindingKind::Loop);
  if (s.kind == MStmt::Kind::MapFor)
    for (const std::string &v : s.vars) scope_.bindVar(v, BindingKind::Mapped);
  enterScope(s);
  walkNested(s.body);
  leaveScope(s);
  scope_.popVars(vars);
}

void MappingVisitor::visitBlock(const MStmt &s) {
  size_t open = allocs_.size();
  for (const MStmtPtr &c : s.stmts) walkStmt(c);
  closeAllocs(open);
}

void MappingVisitor::visitMapFor(const MStmt &s) {
  for (const MappingAtom &a : s.mapping.atoms) walkExprs(a.dims);
  walkBody(s);
}

void MappingVisitor::visitSeqFor(const MStmt &s) {
  walkExpr(s.begin);
  walkExpr(s.end);
  walkBody(s);
}

void MappingVisitor::visitAlloc(const MStmt &s) {
  scope_.bindTensor(s.tensor);
  allocs_.push_back(&s);
  enterScope(s);
}

void MappingVisitor::visitStore(const MStmt &s) {
  walkExprs(s.indices);
  walkExpr(s.value);
}

void MappingVisitor::visitIf(const MStmt &s) {
  walkExpr(s.cond);
  walkNested(s.thenS);
  walkNested(s.elseS);
}

void MappingVisitor::visitIntrinsic(const MStmt &s) { walkExprs(s.operands); }
void MappingVisitor::visitPrefetch(const MStmt &s) { walkExprs(s.indices); }

} // namespace tk::ir
