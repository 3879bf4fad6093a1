#include "ir/IRMutator.h"

namespace tk::ir {

namespace {

// A field's new value, noting whether it differs from the old one.
template <class T> T track(T next, const T &old, bool &changed) {
  changed |= next != old;
  return next;
}

} // namespace

// ---- expressions ----

Expr ExprMutator::mutateExpr(const Expr &e) {
  if (!e) return e;
  switch (e->kind) {
  case ExprKind::IntImm:
  case ExprKind::FloatImm:
  case ExprKind::BoolImm:
  case ExprKind::Hole: return mutateLeaf(e);
  case ExprKind::Var: return mutateVar(e);
  case ExprKind::Unary:
  case ExprKind::Binary:
  case ExprKind::Select:
  case ExprKind::Call:
  case ExprKind::Cast:
  case ExprKind::Shuffle: return mutateOperation(e);
  case ExprKind::Load: return mutateLoad(e);
  case ExprKind::Reduce: return mutateReduce(e);
  }
  return e;
}

std::vector<Expr> ExprMutator::mutateExprs(const std::vector<Expr> &es, bool &changed) {
  std::vector<Expr> out;
  out.reserve(es.size());
  for (const Expr &e : es) out.push_back(track(mutateExpr(e), e, changed));
  return out;
}

Expr ExprMutator::mutateOperation(const Expr &e) {
  bool changed = false;
  std::vector<Expr> args = mutateExprs(e->args, changed);
  if (!changed) return e;
  auto n = std::make_shared<ExprNode>(*e);
  n->args = std::move(args);
  return n;
}

Expr ExprMutator::mutateLoad(const Expr &e) {
  bool changed = false;
  TensorPtr t = track(mutateTensor(e->tensor), e->tensor, changed);
  std::vector<Expr> args = mutateExprs(e->args, changed);
  Expr pad = track(mutateExpr(e->pad), e->pad, changed);
  Expr pred = track(mutateExpr(e->pred), e->pred, changed);
  if (!changed) return e;
  auto n = std::make_shared<ExprNode>(*e);
  n->tensor = std::move(t);
  n->args = std::move(args);
  n->pad = std::move(pad);
  n->pred = std::move(pred);
  return n;
}

Expr ExprMutator::mutateReduce(const Expr &e) {
  bool changed = false;
  size_t outer = scope_.vars().size();
  for (const IndexVar &v : e->rvars) scope_.bindVar(v.name, BindingKind::Reduce);
  enterReduce(e);
  std::vector<Expr> args = mutateExprs(e->args, changed);
  leaveReduce(e);
  scope_.popVars(outer);
  std::vector<IndexVar> rvars = e->rvars;
  for (IndexVar &v : rvars) v.extent = track(mutateExpr(v.extent), v.extent, changed);
  if (!changed) return e;
  auto n = std::make_shared<ExprNode>(*e);
  n->rvars = std::move(rvars);
  n->args = std::move(args);
  return n;
}

// ---- loop IR ----

LStmtPtr LoopMutator::mutateStmt(const LStmtPtr &s) {
  if (!s) return s;
  switch (s->kind) {
  case LStmt::Kind::Block: return mutateBlock(s);
  case LStmt::Kind::For: return mutateFor(s);
  case LStmt::Kind::Store: return mutateStore(s);
  case LStmt::Kind::Alloc: return mutateAlloc(s);
  case LStmt::Kind::If: return mutateIf(s);
  case LStmt::Kind::Let: return mutateLet(s);
  case LStmt::Kind::Check: return mutateCheck(s);
  case LStmt::Kind::Barrier: return mutateBarrier(s);
  case LStmt::Kind::Intrinsic: return mutateIntrinsic(s);
  case LStmt::Kind::Prefetch: return mutatePrefetch(s);
  case LStmt::Kind::Dma: return mutateDma(s);
  case LStmt::Kind::DmaWait: return mutateDmaWait(s);
  }
  return s;
}

LStmtPtr LoopMutator::mutateBody(const LStmt &s) {
  size_t vars = scope_.vars().size(), tensors = scope_.tensors().size();
  if (s.kind == LStmt::Kind::For) scope_.bindVar(s.var, BindingKind::Loop);
  if (s.kind == LStmt::Kind::Let) scope_.bindVar(s.var, BindingKind::Let);
  if (s.kind == LStmt::Kind::Alloc) scope_.bindTensor(s.tensor);
  enterScope(s);
  LStmtPtr body = mutateStmt(s.body);
  leaveScope(s);
  scope_.popVars(vars);
  scope_.popTensors(tensors);
  return body;
}

LStmtPtr LoopMutator::mutateBlock(const LStmtPtr &s) {
  bool changed = false;
  std::vector<LStmtPtr> stmts;
  stmts.reserve(s->stmts.size());
  for (const LStmtPtr &c : s->stmts) stmts.push_back(track(mutateStmt(c), c, changed));
  if (!changed) return s;
  auto n = std::make_shared<LStmt>(*s);
  n->stmts = std::move(stmts);
  return n;
}

LStmtPtr LoopMutator::mutateFor(const LStmtPtr &s) {
  bool changed = false;
  Expr min = track(mutateExpr(s->min), s->min, changed);
  Expr extent = track(mutateExpr(s->extent), s->extent, changed);
  LStmtPtr body = track(mutateBody(*s), s->body, changed);
  if (!changed) return s;
  auto n = std::make_shared<LStmt>(*s);
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->body = std::move(body);
  return n;
}

LStmtPtr LoopMutator::mutateStore(const LStmtPtr &s) {
  bool changed = false;
  TensorPtr t = track(mutateTensor(s->tensor), s->tensor, changed);
  std::vector<Expr> indices = mutateExprs(s->indices, changed);
  Expr value = track(mutateExpr(s->value), s->value, changed);
  Expr pred = track(mutateExpr(s->pred), s->pred, changed);
  if (!changed) return s;
  auto n = std::make_shared<LStmt>(*s);
  n->tensor = std::move(t);
  n->indices = std::move(indices);
  n->value = std::move(value);
  n->pred = std::move(pred);
  return n;
}

LStmtPtr LoopMutator::mutateAlloc(const LStmtPtr &s) {
  bool changed = false;
  TensorPtr t = track(mutateTensor(s->tensor), s->tensor, changed);
  LStmtPtr body = track(mutateBody(*s), s->body, changed);
  if (!changed) return s;
  auto n = std::make_shared<LStmt>(*s);
  n->tensor = std::move(t);
  n->body = std::move(body);
  return n;
}

LStmtPtr LoopMutator::mutateIf(const LStmtPtr &s) {
  bool changed = false;
  Expr cond = track(mutateExpr(s->cond), s->cond, changed);
  LStmtPtr thenS = track(mutateStmt(s->thenS), s->thenS, changed);
  LStmtPtr elseS = track(mutateStmt(s->elseS), s->elseS, changed);
  if (!changed) return s;
  auto n = std::make_shared<LStmt>(*s);
  n->cond = std::move(cond);
  n->thenS = std::move(thenS);
  n->elseS = std::move(elseS);
  return n;
}

LStmtPtr LoopMutator::mutateLet(const LStmtPtr &s) {
  bool changed = false;
  Expr value = track(mutateExpr(s->value), s->value, changed);
  LStmtPtr body = track(mutateBody(*s), s->body, changed);
  if (!changed) return s;
  auto n = std::make_shared<LStmt>(*s);
  n->value = std::move(value);
  n->body = std::move(body);
  return n;
}

LStmtPtr LoopMutator::mutateCheck(const LStmtPtr &s) {
  bool changed = false;
  TensorPtr t = track(mutateTensor(s->tensor), s->tensor, changed);
  Expr cond = track(mutateExpr(s->cond), s->cond, changed);
  if (!changed) return s;
  auto n = std::make_shared<LStmt>(*s);
  n->tensor = std::move(t);
  n->cond = std::move(cond);
  return n;
}

LStmtPtr LoopMutator::mutateIntrinsic(const LStmtPtr &s) {
  bool changed = false;
  std::vector<Expr> operands = mutateExprs(s->operands, changed);
  if (!changed) return s;
  auto n = std::make_shared<LStmt>(*s);
  n->operands = std::move(operands);
  return n;
}

LStmtPtr LoopMutator::mutateDma(const LStmtPtr &s) {
  bool changed = false;
  TensorPtr t = track(mutateTensor(s->tensor), s->tensor, changed);
  TensorPtr b = track(mutateTensor(s->buffer), s->buffer, changed);
  std::vector<Expr> origin = mutateExprs(s->indices, changed);
  std::vector<Expr> extents = mutateExprs(s->operands, changed);
  Expr offset = s->value ? mutateExpr(s->value) : nullptr;
  changed |= offset != s->value;
  if (!changed) return s;
  auto n = std::make_shared<LStmt>(*s);
  n->tensor = std::move(t);
  n->buffer = std::move(b);
  n->indices = std::move(origin);
  n->operands = std::move(extents);
  n->value = std::move(offset);
  return n;
}

LStmtPtr LoopMutator::mutateDmaWait(const LStmtPtr &s) {
  bool changed = false;
  TensorPtr b = track(mutateTensor(s->buffer), s->buffer, changed);
  if (!changed) return s;
  auto n = std::make_shared<LStmt>(*s);
  n->buffer = std::move(b);
  return n;
}

LStmtPtr LoopMutator::mutatePrefetch(const LStmtPtr &s) {
  bool changed = false;
  TensorPtr t = track(mutateTensor(s->tensor), s->tensor, changed);
  std::vector<Expr> indices = mutateExprs(s->indices, changed);
  if (!changed) return s;
  auto n = std::make_shared<LStmt>(*s);
  n->tensor = std::move(t);
  n->indices = std::move(indices);
  return n;
}

// ---- mapping IR ----

MStmtPtr MappingMutator::mutateStmt(const MStmtPtr &s) {
  if (!s) return s;
  switch (s->kind) {
  case MStmt::Kind::Block: return mutateBlock(s);
  case MStmt::Kind::MapFor: return mutateMapFor(s);
  case MStmt::Kind::SeqFor: return mutateSeqFor(s);
  case MStmt::Kind::Alloc: return mutateAlloc(s);
  case MStmt::Kind::Store: return mutateStore(s);
  case MStmt::Kind::Sync: return mutateSync(s);
  case MStmt::Kind::If: return mutateIf(s);
  case MStmt::Kind::Intrinsic: return mutateIntrinsic(s);
  case MStmt::Kind::Prefetch: return mutatePrefetch(s);
  }
  return s;
}

void MappingMutator::closeAllocs(size_t keep) {
  while (allocs_.size() > keep) {
    leaveScope(*allocs_.back());
    allocs_.pop_back();
    scope_.popTensors(scope_.tensors().size() - 1);
  }
}

MStmtPtr MappingMutator::mutateNested(const MStmtPtr &s) {
  size_t open = allocs_.size();
  MStmtPtr out = mutateStmt(s);
  closeAllocs(open);
  return out;
}

MStmtPtr MappingMutator::mutateBody(const MStmt &s) {
  size_t vars = scope_.vars().size();
  if (s.kind == MStmt::Kind::SeqFor) scope_.bindVar(s.var, BindingKind::Loop);
  if (s.kind == MStmt::Kind::MapFor)
    for (const std::string &v : s.vars) scope_.bindVar(v, BindingKind::Mapped);
  enterScope(s);
  MStmtPtr body = mutateNested(s.body);
  leaveScope(s);
  scope_.popVars(vars);
  return body;
}

MStmtPtr MappingMutator::mutateBlock(const MStmtPtr &s) {
  bool changed = false;
  size_t open = allocs_.size();
  std::vector<MStmtPtr> stmts;
  stmts.reserve(s->stmts.size());
  for (const MStmtPtr &c : s->stmts) stmts.push_back(track(mutateStmt(c), c, changed));
  closeAllocs(open);
  if (!changed) return s;
  auto n = std::make_shared<MStmt>(*s);
  n->stmts = std::move(stmts);
  return n;
}

MStmtPtr MappingMutator::mutateMapFor(const MStmtPtr &s) {
  bool changed = false;
  TaskMapping mapping = s->mapping;
  for (MappingAtom &a : mapping.atoms) a.dims = mutateExprs(a.dims, changed);
  MStmtPtr body = track(mutateBody(*s), s->body, changed);
  if (!changed) return s;
  auto n = std::make_shared<MStmt>(*s);
  n->mapping = std::move(mapping);
  n->body = std::move(body);
  return n;
}

MStmtPtr MappingMutator::mutateSeqFor(const MStmtPtr &s) {
  bool changed = false;
  Expr begin = track(mutateExpr(s->begin), s->begin, changed);
  Expr end = track(mutateExpr(s->end), s->end, changed);
  MStmtPtr body = track(mutateBody(*s), s->body, changed);
  if (!changed) return s;
  auto n = std::make_shared<MStmt>(*s);
  n->begin = std::move(begin);
  n->end = std::move(end);
  n->body = std::move(body);
  return n;
}

MStmtPtr MappingMutator::mutateAlloc(const MStmtPtr &s) {
  TensorPtr t = mutateTensor(s->tensor);
  scope_.bindTensor(s->tensor);
  allocs_.push_back(s.get());
  enterScope(*s);
  if (t == s->tensor) return s;
  auto n = std::make_shared<MStmt>(*s);
  n->tensor = std::move(t);
  return n;
}

MStmtPtr MappingMutator::mutateStore(const MStmtPtr &s) {
  bool changed = false;
  TensorPtr t = track(mutateTensor(s->tensor), s->tensor, changed);
  std::vector<Expr> indices = mutateExprs(s->indices, changed);
  Expr value = track(mutateExpr(s->value), s->value, changed);
  if (!changed) return s;
  auto n = std::make_shared<MStmt>(*s);
  n->tensor = std::move(t);
  n->indices = std::move(indices);
  n->value = std::move(value);
  return n;
}

MStmtPtr MappingMutator::mutateIf(const MStmtPtr &s) {
  bool changed = false;
  Expr cond = track(mutateExpr(s->cond), s->cond, changed);
  MStmtPtr thenS = track(mutateNested(s->thenS), s->thenS, changed);
  MStmtPtr elseS = track(mutateNested(s->elseS), s->elseS, changed);
  if (!changed) return s;
  auto n = std::make_shared<MStmt>(*s);
  n->cond = std::move(cond);
  n->thenS = std::move(thenS);
  n->elseS = std::move(elseS);
  return n;
}

MStmtPtr MappingMutator::mutateIntrinsic(const MStmtPtr &s) {
  bool changed = false;
  std::vector<Expr> operands = mutateExprs(s->operands, changed);
  if (!changed) return s;
  auto n = std::make_shared<MStmt>(*s);
  n->operands = std::move(operands);
  return n;
}

MStmtPtr MappingMutator::mutatePrefetch(const MStmtPtr &s) {
  bool changed = false;
  TensorPtr t = track(mutateTensor(s->tensor), s->tensor, changed);
  std::vector<Expr> indices = mutateExprs(s->indices, changed);
  if (!changed) return s;
  auto n = std::make_shared<MStmt>(*s);
  n->tensor = std::move(t);
  n->indices = std::move(indices);
  return n;
}

} // namespace tk::ir
