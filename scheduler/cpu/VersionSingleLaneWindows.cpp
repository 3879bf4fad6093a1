#include "scheduler/cpu/VersionSingleLaneWindows.h"

#include "ir/IRMutator.h"
#include "ir/Simplify.h"

#include <algorithm>

namespace tk {
using namespace ir;

namespace {

// The loops of the perfect nest rooted at `s`, outermost first, and the
// store they hold (null when the nest does not qualify).
const LStmt *windowNest(const LStmt &s, std::vector<const LStmt *> &loops) {
  const LStmt *n = &s;
  while (n && n->kind == LStmt::Kind::For && n->forKind == ForKind::Serial) {
    loops.push_back(n);
    n = soleStmt(n->body.get());
  }
  if (loops.size() < 2 || !n || n->kind != LStmt::Kind::Store || !n->value || isConstInt(loops.back()->extent))
    return nullptr;
  const Expr &v = n->value;
  if (v->kind != ExprKind::Binary || (v->binOp != BinOp::Add && v->binOp != BinOp::Max && v->binOp != BinOp::Min))
    return nullptr;
  const Expr &acc = v->args[0], &x = v->args[1];
  if (acc->kind != ExprKind::Load || acc->tensor != n->tensor || acc->args.size() != n->indices.size()) return nullptr;
  for (size_t d = 0; d < acc->args.size(); ++d)
    if (!sameExpr(acc->args[d], n->indices[d])) return nullptr;
  auto mentions = [&](const std::string &var) {
    return std::any_of(n->indices.begin(), n->indices.end(), [&](const Expr &i) { return mentionsVar(i, var); });
  };
  for (size_t l = 0; l + 1 < loops.size(); ++l)
    if (mentions(loops[l]->var) || mentionsVar(loops.back()->extent, loops[l]->var)) return nullptr;
  // A window: V moves with x too (a read that ignores x is a broadcast
  // along the row, which runs as well along x).
  if (!mentions(loops.back()->var) || x->kind != ExprKind::Load || x->args.empty() ||
      !mentionsVar(x, loops.back()->var))
    return nullptr;
  std::optional<VarTerm> along = splitOnVar(x->args.back(), loops[loops.size() - 2]->var);
  return along && along->coef == 1 ? n : nullptr;
}

// if (E == 1) { prev; the nest along memory } else { prev; the nest }:
// `prev` (may be null) is the statement before the nest, usually the loop
// that sets the row to the identity, which the x86 register tile takes as
// its accumulators' start only when it comes right before the nest.
LStmtPtr version(const LStmtPtr &nest, const std::vector<const LStmt *> &loops, const LStmtPtr &prev) {
  const LStmt &x = *loops.back();
  LStmtPtr inner = x.body;
  for (size_t l = loops.size() - 1; l-- > 0;) {
    auto copy = std::make_shared<LStmt>(*loops[l]);
    copy->body = inner;
    inner = copy;
  }
  auto alongMemory = std::make_shared<LStmt>(x);
  alongMemory->body = inner;
  auto withPrev = [&](LStmtPtr s) { return prev ? lBlock({prev, std::move(s)}, s->loc) : s; };
  return lIf(simplify(binary(BinOp::EQ, x.extent, intImm(1))), withPrev(alongMemory), withPrev(nest), nest->loc);
}

class Versioning : public LoopMutator {
public:
  LStmtPtr mutateFor(const LStmtPtr &s) override {
    std::vector<const LStmt *> loops;
    if (!windowNest(*s, loops)) return LoopMutator::mutateFor(s);
    return version(s, loops, nullptr);
  }

  LStmtPtr mutateBlock(const LStmtPtr &s) override {
    std::vector<LStmtPtr> out;
    for (size_t k = 0; k < s->stmts.size(); ++k) {
      const LStmtPtr &c = s->stmts[k];
      std::vector<const LStmt *> loops;
      if (c->kind != LStmt::Kind::For || !windowNest(*c, loops)) {
        out.push_back(mutateStmt(c));
        continue;
      }
      // The statement before joins both versions when it is a loop of the
      // nest's row extent (the row's initialisation).
      bool init = !out.empty() && k > 0 && s->stmts[k - 1]->kind == LStmt::Kind::For &&
                  sameExpr(s->stmts[k - 1]->extent, loops.back()->extent);
      LStmtPtr prev = init ? out.back() : nullptr;
      if (init) out.pop_back();
      out.push_back(version(c, loops, prev));
    }
    auto b = std::make_shared<LStmt>(*s);
    b->stmts = std::move(out);
    return b;
  }
};

} // namespace

LoweredFunc versionSingleLaneWindows(LoweredFunc f) {
  Versioning v;
  f.body = v.mutateStmt(f.body);
  return f;
}

} // namespace tk
