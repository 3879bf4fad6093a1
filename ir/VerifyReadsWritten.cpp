#include "ir/VerifyReadsWritten.h"

#include "ir/Diagnostics.h"
#include "ir/IRRewrite.h"
#include "ir/IRVisitor.h"

#include <fmt/format.h>

namespace tk::ir {

namespace {

// The intrinsics whose first operand names the element(s) they write
// (docs/gpu.md): mma's accumulator, ldmatrix's fragment, cp_async's
// destination, atomic_add's target.
bool writesFirstOperand(GpuIntrinsic g) {
  return g == GpuIntrinsic::Mma || g == GpuIntrinsic::LdMatrix || g == GpuIntrinsic::LdMatrixTrans ||
         g == GpuIntrinsic::CpAsync || g == GpuIntrinsic::AtomicAdd;
}

std::string lineCol(SourceLoc loc) { return fmt::format("{}:{}", loc.line, loc.col); }

// Walks the function in program order: the visitor reads a statement's own
// expressions (through walkExpr) before its children run.
class Checker : public LoopVisitor {
public:
  Checker(const LoweredFunc &f, const std::set<const TensorDecl *> &exempt) : f_(f), exempt_(exempt) {
    for (const Param &p : f.op->inputs)
      if (p.tensor) exempt_.insert(p.tensor.get());
  }

  void walkStmt(const LStmtPtr &s) override {
    const LStmt *outer = stmt_;
    if (s) stmt_ = s.get();
    LoopVisitor::walkStmt(s);
    stmt_ = outer;
  }

  // Every expression of the current statement is read (its loads); the
  // loads inside it are found by visitExpr, not by this walk.
  void walkExpr(const Expr &e) override { reads(*stmt_, e); }

protected:
  void visitFor(const LStmt &s) override {
    walkExpr(s.min);
    walkExpr(s.extent);
    // What the body writes in one iteration may be read in the next.
    visitLStmt(s.body, [&](const LStmt &b) { markWrites(b); });
    walkBody(s);
  }

  void visitAlloc(const LStmt &s) override {
    allocated_.insert(s.tensor.get());
    written_.erase(s.tensor.get());
    walkBody(s);
  }

  void visitStore(const LStmt &s) override {
    LoopVisitor::visitStore(s); // indices, value, guard
    allocatedBefore(s, s.tensor, "written");
    markWrites(s);
  }

  // The address is computed, the element never read.
  void visitPrefetch(const LStmt &s) override { walkExprs(s.indices); }

  // A get writes its buffer; a put reads it (all of it: the box is
  // packed from element 0) and writes the main-memory tensor.
  void visitDma(const LStmt &s) override {
    LoopVisitor::visitDma(s);
    const TensorPtr &from = s.put ? s.buffer : s.tensor;
    if (!written_.count(from.get()) && !exempt_.count(from.get()))
      throw InternalError("loop IR of function " + f_.name + ": '" + from->name + "' is copied by a dma at line " +
                          lineCol(s.loc) + " before anything writes it, and it is not an input");
    allocatedBefore(s, from, "read");
    allocatedBefore(s, s.put ? s.tensor : s.buffer, "written");
    markWrites(s);
  }

  void visitIntrinsic(const LStmt &s) override {
    for (size_t i = 0; i < s.operands.size(); ++i) {
      const Expr &o = s.operands[i];
      if (i == 0 && writesFirstOperand(s.intrinsic) && o && o->kind == ExprKind::Load) {
        walkExprs(o->args);
        allocatedBefore(s, o->tensor, "written", o->loc);
      } else
        walkExpr(o);
    }
    markWrites(s);
  }

private:
  void markWrites(const LStmt &s) {
    if (s.kind == LStmt::Kind::Store && s.tensor) written_.insert(s.tensor.get());
    if (s.kind == LStmt::Kind::Dma) written_.insert((s.put ? s.tensor : s.buffer).get());
    if (s.kind == LStmt::Kind::Intrinsic && writesFirstOperand(s.intrinsic) && !s.operands.empty() &&
        s.operands[0] && s.operands[0]->kind == ExprKind::Load)
      written_.insert(s.operands[0]->tensor.get());
  }

  // Op intermediates and scratch buffers exist only inside their `alloc`
  // (one that precedes the access in program order, for this check).
  void allocatedBefore(const LStmt &s, const TensorPtr &t, const char *what, SourceLoc loc = {}) {
    if (!t || (t->role != TensorRole::Intermediate && t->role != TensorRole::Local) || allocated_.count(t.get()))
      return;
    throw InternalError("loop IR of function " + f_.name + ": '" + t->name + "' is " + what + " at line " +
                        lineCol(loc.valid() ? loc : s.loc) + " but never allocated before");
  }

  void reads(const LStmt &s, const Expr &e) {
    if (!e) return;
    visitExpr(e, [&](const Expr &n) {
      if (n->kind != ExprKind::Load || !n->tensor) return;
      if (!written_.count(n->tensor.get()) && !exempt_.count(n->tensor.get()))
        throw InternalError("loop IR of function " + f_.name + ": '" + n->tensor->name + "' is read at line " +
                            lineCol(n->loc.valid() ? n->loc : s.loc) + " (`" + printExpr(e) +
                            "`) before anything writes it, and it is not an input");
      allocatedBefore(s, n->tensor, "read", n->loc);
    });
  }

  const LoweredFunc &f_;
  const LStmt *stmt_ = nullptr;            // the statement whose expressions are read
  std::set<const TensorDecl *> exempt_;    // inputs, and what the caller exempts
  std::set<const TensorDecl *> written_;   // may have been written by now
  std::set<const TensorDecl *> allocated_; // an alloc of it came before
};

} // namespace

void verifyReadsWritten(const LoweredFunc &f, const std::set<const TensorDecl *> &exempt) {
  if (!f.op) throw InternalError("loop IR function " + f.name + " has no op");
  Checker(f, exempt).walkStmt(f.body);
}

} // namespace tk::ir
