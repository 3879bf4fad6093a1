#include "ir/VerifyExpr.h"

#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"

#include <fmt/format.h>

namespace tk::ir {

VerifyScope opScope(const Op &op, std::string where) {
  VerifyScope s;
  s.where = std::move(where);
  for (const std::string &sym : op.symbols) s.vars.insert(sym);
  for (const Param &p : op.inputs) {
    if (p.isScalar()) s.vars.insert(p.name);
    else s.tensors.insert(p.tensor.get());
  }
  for (const TensorPtr &t : op.outputs) s.tensors.insert(t.get());
  for (const TensorPtr &t : op.intermediates) s.tensors.insert(t.get());
  return s;
}

void verifyFail(const VerifyScope &scope, const std::string &what) {
  throw InternalError(scope.where + ": " + what);
}

namespace {

// Checks every node of one expression, `root_`, which messages quote; the
// walk's own scope holds the reduction variables around the current node.
class ExprChecker : public ExprVisitor {
public:
  ExprChecker(const VerifyScope &outer, const BindingScope &bound, const Expr &root)
      : outer_(outer), bound_(bound), root_(root) {}

  void run() {
    if (!root_) failNull();
    walkExpr(root_);
  }

protected:
  void visitLeaf(const Expr &e) override {
    if (e->kind == ExprKind::Hole && !outer_.holeIds.count(e->holeId))
      fail(fmt::format("unfilled or undeclared hole ?{}", e->holeId));
  }

  void visitVar(const Expr &e) override {
    if (!outer_.vars.count(e->name) && !bound_.hasVar(e->name) && !scope().hasVar(e->name))
      fail("unbound variable '" + e->name + "'");
  }

  void visitOperation(const Expr &e) override {
    switch (e->kind) {
    case ExprKind::Unary:
    case ExprKind::Call:
    case ExprKind::Cast:
      if (e->args.size() != 1) fail("malformed unary node");
      break;
    case ExprKind::Binary:
      if (e->args.size() != 2) fail("malformed binary node");
      break;
    case ExprKind::Shuffle:
      if (e->args.size() != 2 || !isInteger(e->args[1]->type)) fail("malformed warp shuffle");
      break;
    case ExprKind::Select:
      if (e->args.size() != 3) fail("malformed select");
      break;
    default: break;
    }
    walkArgs(e);
  }

  void visitLoad(const Expr &e) override {
    if (!e->tensor || (!outer_.tensors.count(e->tensor.get()) && !bound_.hasTensor(e->tensor.get())))
      fail("load of tensor '" + (e->tensor ? e->tensor->name : std::string("<null>")) + "' not in scope");
    if (e->args.size() != e->tensor->rank())
      fail(fmt::format("load of {} with {} indices, rank {}", e->tensor->name, e->args.size(), e->tensor->rank()));
    walkArgs(e);
    walkExpr(e->pad);
    walkExpr(e->pred);
  }

  void visitReduce(const Expr &e) override {
    if (!outer_.allowReduce) fail("reduction left after reduction lowering");
    if (e->args.size() != 1) fail("malformed reduction");
    if (!e->args[0]) failNull();
    ExprVisitor::visitReduce(e); // the body with the variables bound, then the extents
  }

private:
  // Operands must be present (unlike a load's optional `else` value and guard).
  void walkArgs(const Expr &e) {
    for (const Expr &a : e->args) {
      if (!a) failNull();
      walkExpr(a);
    }
  }

  [[noreturn]] void fail(const std::string &what) { verifyFail(outer_, what + " in `" + printExpr(root_) + "`"); }
  [[noreturn]] void failNull() { verifyFail(outer_, "null expression inside `" + printExpr(root_) + "`"); }

  const VerifyScope &outer_;
  const BindingScope &bound_;
  const Expr &root_;
};

} // namespace

void verifyExpr(const Expr &e, const VerifyScope &scope, const BindingScope &bound) {
  ExprChecker(scope, bound, e).run();
}

void verifyStore(const TensorPtr &t, const std::vector<Expr> &indices, const Expr &value,
                 const VerifyScope &scope, const BindingScope &bound) {
  if (!t || (!scope.tensors.count(t.get()) && !bound.hasTensor(t.get())))
    verifyFail(scope, "store to a tensor not in scope");
  if (t->role == TensorRole::Input) verifyFail(scope, "store to input " + t->name);
  if (indices.size() != t->rank()) verifyFail(scope, "store rank mismatch on " + t->name);
  for (const Expr &i : indices) verifyExpr(i, scope, bound);
  verifyExpr(value, scope, bound);
}

void verifyIntrinsicOperands(GpuIntrinsic kind, const std::vector<Expr> &operands, const VerifyScope &scope,
                             const BindingScope &bound) {
  for (size_t i = 0; i < operands.size(); ++i) {
    const Expr &o = operands[i];
    if (kind == GpuIntrinsic::AtomicAdd && i == 1 && o) {
      verifyExpr(o, scope, bound);
      continue;
    }
    if (!o || (o->kind != ExprKind::Load && o->kind != ExprKind::IntImm))
      verifyFail(scope, "intrinsic operand is neither a tensor element nor a constant");
    verifyExpr(o, scope, bound);
  }
}

} // namespace tk::ir
