#include "scheduler/FreshNames.h"

#include "ir/IRRewrite.h"

#include <fmt/format.h>

namespace tk {
using namespace ir;

FreshNames::FreshNames(const Op &op, const Assign &a) {
  used_.insert(op.symbols.begin(), op.symbols.end());
  for (const Param &p : op.inputs) used_.insert(p.name);
  for (const TensorPtr &t : op.outputs) used_.insert(t->name);
  for (const IndexVar &v : a.vars) used_.insert(v.name);
  visitExpr(a.value, [&](const Expr &n) {
    for (const IndexVar &v : n->rvars) used_.insert(v.name);
  });
}

FreshNames::FreshNames(const Op &op) {
  for (const Assign &a : op.body) {
    FreshNames one(op, a);
    used_.insert(one.used_.begin(), one.used_.end());
  }
  for (const TensorPtr &t : op.intermediates) used_.insert(t->name);
}

FreshNames::FreshNames(const LoweredFunc &f) {
  used_.insert(f.op->symbols.begin(), f.op->symbols.end());
  for (const Param &p : f.op->inputs) used_.insert(p.name);
  for (const TensorPtr &t : f.op->outputs) used_.insert(t->name);
  visitLStmt(f.body, [&](const LStmt &n) {
    if (n.kind == LStmt::Kind::For || n.kind == LStmt::Kind::Let) used_.insert(n.var);
    if (n.tensor) used_.insert(n.tensor->name);
  });
  visitLExprs(f.body, [&](const Expr &e) {
    visitExpr(e, [&](const Expr &n) {
      if (n->kind == ExprKind::Var) used_.insert(n->name);
    });
  });
}

std::string FreshNames::operator()(const std::string &base) {
  std::string name = base;
  for (int i = 1; used_.count(name); ++i) name = fmt::format("{}_{}", base, i);
  used_.insert(name);
  return name;
}

} // namespace tk
