#include "ir/IRRewrite.h"

namespace tk::ir {

Expr transformExpr(const Expr &e, const ExprFn &post) {
  if (!e) return e;
  bool changed = false;
  auto sub = [&](const Expr &c) {
    Expr n = transformExpr(c, post);
    changed |= n != c;
    return n;
  };
  std::vector<Expr> args;
  args.reserve(e->args.size());
  for (const Expr &a : e->args) args.push_back(sub(a));
  Expr pad = sub(e->pad), pred = sub(e->pred);
  std::vector<IndexVar> rvars = e->rvars;
  for (IndexVar &v : rvars) v.extent = sub(v.extent);
  if (!changed) return post(e);
  auto n = std::make_shared<ExprNode>(*e);
  n->args = std::move(args);
  n->pad = std::move(pad);
  n->pred = std::move(pred);
  n->rvars = std::move(rvars);
  return post(n);
}

static Expr applyFn(const ExprFn &fn, const Expr &e) { return e ? fn(e) : e; }
static std::vector<Expr> applyAll(const ExprFn &fn, const std::vector<Expr> &es) {
  std::vector<Expr> out;
  out.reserve(es.size());
  for (const Expr &e : es) out.push_back(applyFn(fn, e));
  return out;
}
static TensorPtr applyT(const TensorFn &fn, const TensorPtr &t) { return fn && t ? fn(t) : t; }

MStmtPtr rewriteMStmt(const MStmtPtr &s, const ExprFn &fn, const TensorFn &tensorFn) {
  if (!s) return s;
  auto n = std::make_shared<MStmt>(*s);
  for (MStmtPtr &c : n->stmts) c = rewriteMStmt(c, fn, tensorFn);
  for (MappingAtom &a : n->mapping.atoms) a.dims = applyAll(fn, a.dims);
  n->begin = applyFn(fn, s->begin);
  n->end = applyFn(fn, s->end);
  n->body = rewriteMStmt(s->body, fn, tensorFn);
  n->tensor = applyT(tensorFn, s->tensor);
  n->indices = applyAll(fn, s->indices);
  n->value = applyFn(fn, s->value);
  n->cond = applyFn(fn, s->cond);
  n->thenS = rewriteMStmt(s->thenS, fn, tensorFn);
  n->elseS = rewriteMStmt(s->elseS, fn, tensorFn);
  n->operands = applyAll(fn, s->operands);
  return n;
}

LStmtPtr rewriteLStmt(const LStmtPtr &s, const ExprFn &fn, const TensorFn &tensorFn) {
  if (!s) return s;
  auto n = std::make_shared<LStmt>(*s);
  for (LStmtPtr &c : n->stmts) c = rewriteLStmt(c, fn, tensorFn);
  n->min = applyFn(fn, s->min);
  n->extent = applyFn(fn, s->extent);
  n->body = rewriteLStmt(s->body, fn, tensorFn);
  n->tensor = applyT(tensorFn, s->tensor);
  n->indices = applyAll(fn, s->indices);
  n->value = applyFn(fn, s->value);
  n->pred = applyFn(fn, s->pred);
  n->cond = applyFn(fn, s->cond);
  n->thenS = rewriteLStmt(s->thenS, fn, tensorFn);
  n->elseS = rewriteLStmt(s->elseS, fn, tensorFn);
  n->operands = applyAll(fn, s->operands);
  return n;
}

LStmtPtr transformLStmt(const LStmtPtr &s, const std::function<LStmtPtr(const LStmtPtr &)> &post) {
  if (!s) return s;
  auto n = std::make_shared<LStmt>(*s);
  for (LStmtPtr &c : n->stmts) c = transformLStmt(c, post);
  n->body = transformLStmt(s->body, post);
  n->thenS = transformLStmt(s->thenS, post);
  n->elseS = transformLStmt(s->elseS, post);
  return post(n);
}

void visitMStmt(const MStmtPtr &s, const std::function<void(const MStmt &)> &fn) {
  if (!s) return;
  fn(*s);
  for (const MStmtPtr &c : s->stmts) visitMStmt(c, fn);
  visitMStmt(s->body, fn);
  visitMStmt(s->thenS, fn);
  visitMStmt(s->elseS, fn);
}

void visitLStmt(const LStmtPtr &s, const std::function<void(const LStmt &)> &fn) {
  if (!s) return;
  fn(*s);
  for (const LStmtPtr &c : s->stmts) visitLStmt(c, fn);
  visitLStmt(s->body, fn);
  visitLStmt(s->thenS, fn);
  visitLStmt(s->elseS, fn);
}

} // namespace tk::ir
