#include "scheduler/InsertRuntimeChecks.h"

#include "ir/Simplify.h"

#include <fmt/format.h>

#include <algorithm>

namespace tk {
using namespace ir;

// A condition already checked is dropped: an intermediate often has an
// output's extent (conv2d's `mm` and `O`), and a kernel implementing an op
// checks the op's intermediates even where the op's own schedule inlined
// them away; without the duplicate both entries read the same.
static void addCheck(std::vector<LStmtPtr> &out, const Expr &cond, int code, std::string message, SourceLoc loc) {
  Expr c = simplify(cond);
  if (c->kind == ExprKind::BoolImm && c->intValue) return;
  if (std::ranges::any_of(out, [&](const LStmtPtr &s) { return s->errorCode == code && sameExpr(s->cond, c); }))
    return;
  auto s = std::make_shared<LStmt>();
  s->kind = LStmt::Kind::Check;
  s->loc = loc;
  s->cond = c;
  s->errorCode = code;
  s->message = std::move(message);
  out.push_back(s);
}

// Extents computed from symbols and scalar parameters (`N - 1`, `p`, `(H -
// R) / s + 1`) can come out negative for bad arguments; a shape symbol alone
// is checked once, with the symbols, and a constant is checked by the
// frontend. Inputs are checked like outputs: a negative input extent is
// just as invalid (the caller cannot have passed such a tensor).
static void extentChecks(std::vector<LStmtPtr> &out, const Op &op, const TensorPtr &t, const std::string &what) {
  for (size_t d = 0; d < t->rank(); ++d) {
    const Expr &e = t->shape[d];
    bool symbol = e->kind == ExprKind::Var && std::ranges::find(op.symbols, e->name) != op.symbols.end();
    if (symbol || e->kind == ExprKind::IntImm) continue;
    addCheck(out, binary(BinOp::GE, e, intImm(0)), 1,
             fmt::format("{} {} dimension {} extent {} must be >= 0", what, t->name, d, printExpr(e)),
             t->loc);
  }
}

LoweredFunc insertRuntimeChecks(const LoweredFunc &f, const Kernel &k) {
  std::vector<LStmtPtr> stmts;
  for (const std::string &sym : f.op->symbols)
    addCheck(stmts, binary(BinOp::GE, var(sym, VarKind::Symbol), intImm(0)), 1,
             "shape symbol " + sym + " must be >= 0", f.op->loc);
  for (const Constraint &c : f.op->where) addCheck(stmts, c.cond, 1, "where " + printExpr(c.cond), c.loc);
  for (const Param &p : f.op->inputs)
    if (!p.isScalar()) extentChecks(stmts, *f.op, p.tensor, "input");
  for (const TensorPtr &t : f.op->outputs) extentChecks(stmts, *f.op, t, "output");
  for (const TensorPtr &t : f.op->intermediates) extentChecks(stmts, *f.op, t, "intermediate");
  for (const Constraint &c : k.requires_) addCheck(stmts, c.cond, 2, "require " + printExpr(c.cond), c.loc);
  if (stmts.empty()) return f;
  LoweredFunc out = f;
  stmts.push_back(f.body);
  out.body = lBlock(std::move(stmts), f.loc);
  return out;
}

} // namespace tk
