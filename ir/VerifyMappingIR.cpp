#include "ir/VerifyMappingIR.h"

#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "ir/VerifyExpr.h"

#include <algorithm>

namespace tk::ir {

namespace {

// Checks each statement's own fields against the op's names (`outer_`) and
// what the enclosing mappings, loops and allocs bind (the walk's scope(): an
// alloc's tensor is visible to the rest of its block).
class MappingVerifier : public MappingVisitor {
public:
  explicit MappingVerifier(VerifyScope outer) : outer_(std::move(outer)) {}

  void walkStmt(const MStmtPtr &s) override {
    if (!s) verifyFail(outer_, "null statement");
    MappingVisitor::walkStmt(s);
  }

protected:
  void visitMapFor(const MStmt &s) override {
    size_t rank = s.mapping.rank();
    if (rank == 0 || s.vars.size() != rank) verifyFail(outer_, "mapping rank does not match its variables");
    for (const MappingAtom &a : s.mapping.atoms) {
      if (a.dims.size() != rank) verifyFail(outer_, "mapping factors of different ranks");
      for (const Expr &d : a.dims) expr(d);
      if (!a.perm.empty()) {
        std::vector<int> p = a.perm;
        std::sort(p.begin(), p.end());
        for (size_t i = 0; i < p.size(); ++i)
          if (p.size() != rank || p[i] != static_cast<int>(i)) verifyFail(outer_, "invalid rank permutation");
      }
      if (!s.worker && a.kind == MappingAtom::Kind::Spatial)
        verifyFail(outer_, "spatial mapping without a worker kind");
    }
    walkBody(s);
  }

  void visitSeqFor(const MStmt &s) override {
    expr(s.begin);
    expr(s.end);
    walkBody(s);
  }

  void visitAlloc(const MStmt &s) override {
    if (!s.tensor) verifyFail(outer_, "alloc without a tensor");
    for (const Expr &d : s.tensor->shape) expr(d);
    MappingVisitor::visitAlloc(s);
  }

  void visitStore(const MStmt &s) override { verifyStore(s.tensor, s.indices, s.value, outer_, scope()); }

  // The element it names is checked as a read would be.
  void visitPrefetch(const MStmt &s) override { expr(load(s.tensor, s.indices)); }

  void visitIntrinsic(const MStmt &s) override { verifyIntrinsicOperands(s.intrinsic, s.operands, outer_, scope()); }

  void visitIf(const MStmt &s) override {
    expr(s.cond);
    walkNested(s.thenS);
    if (s.elseS) walkNested(s.elseS);
  }

private:
  void expr(const Expr &e) { verifyExpr(e, outer_, scope()); }

  VerifyScope outer_;
};

} // namespace

void verifyMappingIR(const Kernel &k, bool holesFilled) {
  if (!k.op) throw InternalError("kernel " + k.name + " has no op");
  VerifyScope scope = opScope(*k.op, "mapping IR of kernel " + k.name);
  if (!holesFilled)
    for (const Hole &h : k.holes) scope.holeIds.insert(h.id);
  for (const Constraint &c : k.requires_) verifyExpr(c.cond, scope);
  MappingVerifier(std::move(scope)).walkStmt(k.body);
}

} // namespace tk::ir
