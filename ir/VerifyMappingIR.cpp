#include "ir/VerifyMappingIR.h"

#include "ir/Diagnostics.h"
#include "ir/VerifyExpr.h"

#include <algorithm>

namespace tk::ir {

static void verifyMapping(const MStmt &s, const VerifyScope &scope) {
  size_t rank = s.mapping.rank();
  if (rank == 0 || s.vars.size() != rank) verifyFail(scope, "mapping rank does not match its variables");
  for (const MappingAtom &a : s.mapping.atoms) {
    if (a.dims.size() != rank) verifyFail(scope, "mapping factors of different ranks");
    for (const Expr &d : a.dims) verifyExpr(d, scope);
    if (!a.perm.empty()) {
      std::vector<int> p = a.perm;
      std::sort(p.begin(), p.end());
      for (size_t i = 0; i < p.size(); ++i)
        if (p.size() != rank || p[i] != static_cast<int>(i)) verifyFail(scope, "invalid rank permutation");
    }
    if (!s.worker && a.kind == MappingAtom::Kind::Spatial)
      verifyFail(scope, "spatial mapping without a worker kind");
  }
}

static void verifyStmt(const MStmtPtr &s, VerifyScope &scope) {
  if (!s) verifyFail(scope, "null statement");
  switch (s->kind) {
  case MStmt::Kind::Block: {
    VerifyScope inner = scope;
    for (const MStmtPtr &c : s->stmts) verifyStmt(c, inner);
    return;
  }
  case MStmt::Kind::MapFor: {
    verifyMapping(*s, scope);
    VerifyScope inner = scope;
    for (const std::string &v : s->vars) inner.vars.insert(v);
    verifyStmt(s->body, inner);
    return;
  }
  case MStmt::Kind::SeqFor: {
    verifyExpr(s->begin, scope);
    verifyExpr(s->end, scope);
    VerifyScope inner = scope;
    inner.vars.insert(s->var);
    verifyStmt(s->body, inner);
    return;
  }
  case MStmt::Kind::Alloc:
    if (!s->tensor) verifyFail(scope, "alloc without a tensor");
    for (const Expr &d : s->tensor->shape) verifyExpr(d, scope);
    scope.tensors.insert(s->tensor.get()); // visible to the rest of the block
    return;
  case MStmt::Kind::Store:
    verifyStore(s->tensor, s->indices, s->value, scope);
    return;
  case MStmt::Kind::Sync: return;
  case MStmt::Kind::Prefetch: // the element it names is checked as a read would be
    verifyExpr(load(s->tensor, s->indices), scope);
    return;
  case MStmt::Kind::Intrinsic:
    verifyIntrinsicOperands(s->intrinsic, s->operands, scope);
    return;
  case MStmt::Kind::If: {
    verifyExpr(s->cond, scope);
    VerifyScope thenScope = scope;
    verifyStmt(s->thenS, thenScope);
    if (s->elseS) {
      VerifyScope elseScope = scope;
      verifyStmt(s->elseS, elseScope);
    }
    return;
  }
  }
}

void verifyMappingIR(const Kernel &k, bool holesFilled) {
  if (!k.op) throw InternalError("kernel " + k.name + " has no op");
  VerifyScope scope = opScope(*k.op, "mapping IR of kernel " + k.name);
  if (!holesFilled)
    for (const Hole &h : k.holes) scope.holeIds.insert(h.id);
  for (const Constraint &c : k.requires_) verifyExpr(c.cond, scope);
  verifyStmt(k.body, scope);
}

} // namespace tk::ir
