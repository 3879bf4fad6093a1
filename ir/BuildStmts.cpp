// Constructors for mapping-IR and loop-IR statements shared by the passes
// (declared in MappingIR.h and LoopIR.h).
#include "ir/LoopIR.h"

namespace tk::ir {

MStmtPtr mStmt(MStmt::Kind kind, SourceLoc loc) {
  auto s = std::make_shared<MStmt>();
  s->kind = kind;
  s->loc = loc;
  return s;
}

MStmtPtr mBlock(std::vector<MStmtPtr> stmts, SourceLoc loc) {
  MStmtPtr s = mStmt(MStmt::Kind::Block, loc);
  s->stmts = std::move(stmts);
  return s;
}

MStmtPtr mMapFor(std::vector<std::string> vars, MappingAtom::Kind kind, std::vector<Expr> dims,
                 std::optional<WorkerKind> worker, MStmtPtr body, SourceLoc loc) {
  MStmtPtr s = mStmt(MStmt::Kind::MapFor, loc);
  s->vars = std::move(vars);
  MappingAtom atom;
  atom.kind = kind;
  atom.dims = std::move(dims);
  atom.loc = loc;
  s->mapping.atoms.push_back(std::move(atom));
  s->worker = worker;
  s->body = std::move(body);
  return s;
}

MStmtPtr mStore(TensorPtr t, std::vector<Expr> idx, Expr value, AccumOp accum, SourceLoc loc) {
  MStmtPtr s = mStmt(MStmt::Kind::Store, loc);
  s->tensor = std::move(t);
  s->indices = std::move(idx);
  s->value = std::move(value);
  s->accum = accum;
  return s;
}

MStmtPtr mPrefetch(TensorPtr t, std::vector<Expr> idx, SourceLoc loc) {
  MStmtPtr s = mStmt(MStmt::Kind::Prefetch, loc);
  s->tensor = std::move(t);
  s->indices = std::move(idx);
  return s;
}

MStmtPtr mSeqFor(std::string var, Expr end, MStmtPtr body, SourceLoc loc) {
  MStmtPtr s = mStmt(MStmt::Kind::SeqFor, loc);
  s->var = std::move(var);
  s->begin = intImm(0);
  s->end = std::move(end);
  s->body = std::move(body);
  return s;
}

MStmtPtr mIf(Expr cond, MStmtPtr thenS, MStmtPtr elseS, SourceLoc loc) {
  MStmtPtr s = mStmt(MStmt::Kind::If, loc);
  s->cond = std::move(cond);
  s->thenS = std::move(thenS);
  s->elseS = std::move(elseS);
  return s;
}

TensorPtr scratchTensor(std::string name, ScalarType dtype, std::vector<Expr> shape, Scope scope, SourceLoc loc) {
  auto t = std::make_shared<TensorDecl>();
  t->name = std::move(name);
  t->dtype = dtype;
  t->shape = std::move(shape);
  t->scope = scope;
  t->role = TensorRole::Local;
  t->loc = loc;
  return t;
}

MStmtPtr mAlloc(TensorPtr t, SourceLoc loc) {
  MStmtPtr s = mStmt(MStmt::Kind::Alloc, loc);
  s->tensor = std::move(t);
  return s;
}

LStmtPtr lStmt(LStmt::Kind kind, SourceLoc loc) {
  auto s = std::make_shared<LStmt>();
  s->kind = kind;
  s->loc = loc;
  return s;
}

const LStmt *soleStmt(const LStmt *s) {
  while (s && s->kind == LStmt::Kind::Block && s->stmts.size() == 1) s = s->stmts[0].get();
  return s;
}

LStmtPtr lAlloc(TensorPtr t, LStmtPtr body, SourceLoc loc) {
  LStmtPtr s = lStmt(LStmt::Kind::Alloc, loc);
  s->tensor = std::move(t);
  s->body = std::move(body);
  return s;
}

LStmtPtr lFor(std::string var, Expr min, Expr extent, LStmtPtr body, SourceLoc loc, ForKind kind) {
  LStmtPtr s = lStmt(LStmt::Kind::For, loc);
  s->var = std::move(var);
  s->min = std::move(min);
  s->extent = std::move(extent);
  s->forKind = kind;
  s->body = std::move(body);
  return s;
}

LStmtPtr lIf(Expr cond, LStmtPtr thenS, LStmtPtr elseS, SourceLoc loc) {
  LStmtPtr s = lStmt(LStmt::Kind::If, loc);
  s->cond = std::move(cond);
  s->thenS = std::move(thenS);
  s->elseS = std::move(elseS);
  return s;
}

LStmtPtr lDmaWait(TensorPtr buffer, SourceLoc loc) {
  LStmtPtr s = lStmt(LStmt::Kind::DmaWait, loc);
  s->buffer = std::move(buffer);
  return s;
}

LStmtPtr lDma(bool put, TensorPtr mem, std::vector<Expr> origin, std::vector<Expr> extents, TensorPtr buffer,
              SourceLoc loc) {
  LStmtPtr s = lStmt(LStmt::Kind::Dma, loc);
  s->put = put;
  s->tensor = std::move(mem);
  s->indices = std::move(origin);
  s->operands = std::move(extents);
  s->buffer = std::move(buffer);
  return s;
}

LStmtPtr lBlock(std::vector<LStmtPtr> stmts, SourceLoc loc) {
  LStmtPtr s = lStmt(LStmt::Kind::Block, loc);
  s->stmts = std::move(stmts);
  return s;
}

KernelPtr synthesizedKernel(const OpPtr &op, TargetFamily target, MStmtPtr body) {
  auto k = std::make_shared<Kernel>();
  k->name = op->name;
  k->op = op;
  k->target = target;
  k->loc = op->loc;
  k->synthesized = true;
  k->body = std::move(body);
  return k;
}

} // namespace tk::ir
