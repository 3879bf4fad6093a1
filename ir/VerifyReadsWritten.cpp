#include "ir/VerifyReadsWritten.h"

#include "ir/Diagnostics.h"
#include "ir/IRRewrite.h"

namespace tk::ir {

namespace {

// The intrinsics whose first operand names the element(s) they write
// (docs/gpu.md): mma's accumulator, ldmatrix's fragment, cp_async's
// destination, atomic_add's target.
bool writesFirstOperand(GpuIntrinsic g) {
  return g == GpuIntrinsic::Mma || g == GpuIntrinsic::LdMatrix || g == GpuIntrinsic::LdMatrixTrans ||
         g == GpuIntrinsic::CpAsync || g == GpuIntrinsic::AtomicAdd;
}

std::string lineCol(SourceLoc loc) { return std::to_string(loc.line) + ":" + std::to_string(loc.col); }

class Checker {
public:
  Checker(const LoweredFunc &f, const std::set<const TensorDecl *> &exempt) : f_(f), exempt_(exempt) {
    for (const Param &p : f.op->inputs)
      if (p.tensor) exempt_.insert(p.tensor.get());
  }

  void run() {
    visitLStmt(f_.body, [&](const LStmt &s) { visit(s); });
  }

private:
  // Pre-order is program order: a statement's own expressions are read
  // before its children run.
  void visit(const LStmt &s) {
    switch (s.kind) {
    case LStmt::Kind::For:
      reads(s, s.min);
      reads(s, s.extent);
      // What the body writes in one iteration may be read in the next.
      visitLStmt(s.body, [&](const LStmt &b) { markWrites(b); });
      return;
    case LStmt::Kind::Let: reads(s, s.value); return;
    case LStmt::Kind::Alloc:
      allocated_.insert(s.tensor.get());
      written_.erase(s.tensor.get());
      return;
    case LStmt::Kind::Store:
      for (const Expr &i : s.indices) reads(s, i);
      reads(s, s.value);
      reads(s, s.pred);
      allocatedBefore(s, s.tensor, "written");
      markWrites(s);
      return;
    case LStmt::Kind::If:
    case LStmt::Kind::Check: reads(s, s.cond); return;
    case LStmt::Kind::Prefetch: // the address is computed, the element never read
      for (const Expr &i : s.indices) reads(s, i);
      return;
    case LStmt::Kind::Intrinsic:
      for (size_t i = 0; i < s.operands.size(); ++i) {
        const Expr &o = s.operands[i];
        if (i == 0 && writesFirstOperand(s.intrinsic) && o && o->kind == ExprKind::Load) {
          for (const Expr &a : o->args) reads(s, a);
          allocatedBefore(s, o->tensor, "written", o->loc);
        } else
          reads(s, o);
      }
      markWrites(s);
      return;
    case LStmt::Kind::Block:
    case LStmt::Kind::Barrier: return;
    }
  }

  void markWrites(const LStmt &s) {
    if (s.kind == LStmt::Kind::Store && s.tensor) written_.insert(s.tensor.get());
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
  std::set<const TensorDecl *> exempt_;  // inputs, and what the caller exempts
  std::set<const TensorDecl *> written_;   // may have been written by now
  std::set<const TensorDecl *> allocated_; // an alloc of it came before
};

} // namespace

void verifyReadsWritten(const LoweredFunc &f, const std::set<const TensorDecl *> &exempt) {
  if (!f.op) throw InternalError("loop IR function " + f.name + " has no op");
  Checker(f, exempt).run();
}

} // namespace tk::ir
