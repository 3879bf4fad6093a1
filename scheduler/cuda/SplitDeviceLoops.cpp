#include "scheduler/cuda/SplitDeviceLoops.h"

#include "ir/IRMutator.h"
#include "ir/IRRewrite.h"
#include "ir/Simplify.h"
#include "scheduler/DropGuards.h"

#include <set>

namespace tk {
using namespace ir;

namespace {

// Whether a loop with `body` may run different iterations in different
// lanes: false when the body holds a barrier, an intrinsic (mma, ldmatrix,
// cp.async, atomics) or a shuffle, which the lanes of a warp must run
// together — or a loop, which makes the loop around it not innermost.
bool splittable(const LStmtPtr &body) {
  bool ok = true;
  visitLStmt(body, [&](const LStmt &n) {
    ok &= n.kind != LStmt::Kind::For && n.kind != LStmt::Kind::Barrier && n.kind != LStmt::Kind::Intrinsic;
    auto noShuffle = [&](const Expr &e) {
      if (e) visitExpr(e, [&](const Expr &x) { ok &= x->kind != ExprKind::Shuffle; });
    };
    noShuffle(n.value);
    noShuffle(n.cond);
    for (const Expr &i : n.indices) noShuffle(i);
  });
  return ok;
}

// The upper bounds along s->var of the guard conjuncts and `if` and
// `select` conditions affine in it (their texts go to `solved`),
// intersected into `hi`. False for a loop with a lower bound too: a window
// that sticks out at both ends (pooling's and convolution's
// `q*stride + s - pad`), a few iterations whose guarded copies would cost
// more registers than they save.
bool boundsAlong(const LStmtPtr &s, std::set<std::string> &solved, Expr &hi) {
  bool window = false;
  std::set<std::string> inner = namesBoundIn(s);
  inner.erase(s->var);
  auto take = [&](const Expr &pred) {
    if (!pred) return;
    std::vector<Expr> parts;
    guardConjuncts(pred, parts);
    for (const Expr &g : parts) {
      std::string text = printExpr(g);
      if (solved.count(text) || mentionsAny(g, inner)) continue;
      std::optional<GuardRange> r = solveGuardAlong(g, s->var);
      if (!r) continue;
      window |= r->lower != nullptr;
      solved.insert(text);
      if (r->upper) hi = hi ? binary(BinOp::Min, hi, r->upper) : r->upper;
    }
  };
  auto loads = [&](const Expr &e) {
    if (e) visitExpr(e, [&](const Expr &ld) { if (ld->kind == ExprKind::Load) take(ld->pred); });
  };
  auto selects = [&](const Expr &e) {
    if (e) visitExpr(e, [&](const Expr &x) { if (x->kind == ExprKind::Select) take(x->args[0]); });
  };
  visitLStmt(s->body, [&](const LStmt &n) {
    take(n.pred);
    if (n.kind == LStmt::Kind::If) take(n.cond);
    selects(n.value);
    loads(n.value);
    loads(n.cond);
    for (const Expr &i : n.indices) loads(i);
  });
  return !window;
}

// `body` without the guard conjuncts in `proven`, and with the `if`s and
// `select`s whose condition they make true replaced by their `then` branch
// or value (the author's own bounds test, layernorm's `if (c*32 + l < N)`;
// a row kernel's `select(column < N, term, identity)`).
LStmtPtr withoutProven(const LStmtPtr &body, const std::set<std::string> &proven) {
  auto holds = [&](const Expr &cond) {
    std::vector<Expr> parts;
    guardConjuncts(cond, parts);
    for (const Expr &g : parts)
      if (!proven.count(printExpr(g))) return false;
    return true;
  };
  LStmtPtr out = rewriteLStmt(dropGuards(body, proven), [&](const Expr &e) {
    return transformExpr(e, [&](const Expr &x) { return x->kind == ExprKind::Select && holds(x->args[0]) ? x->args[1] : x; });
  });
  return transformLStmt(out, [&](const LStmtPtr &x) -> LStmtPtr {
    if (x->kind != LStmt::Kind::If || !holds(x->cond)) return x;
    return x->thenS ? x->thenS : lBlock({}, x->loc);
  });
}

LStmtPtr split(const LStmtPtr &s) {
  std::set<std::string> invariant;
  Expr cond = invariantGuards(s, invariant);
  std::set<std::string> affine;
  Expr hi;
  if (!boundsAlong(s, affine, hi) || (!cond && affine.empty())) return s;
  LStmtPtr edges = dropGuards(s->body, invariant);
  std::set<std::string> all = invariant;
  all.insert(affine.begin(), affine.end());
  LStmtPtr interior = withoutProven(s->body, all);
  const Expr begin = s->min, end = simplify(add(s->min, s->extent));
  LStmtPtr versioned = loopSlice(*s, begin, end, interior);
  if (hi) { // clamped so that begin <= mid <= end whatever the bound
    Expr mid = simplify(binary(BinOp::Max, binary(BinOp::Min, hi, end), begin));
    versioned = lBlock({loopSlice(*s, begin, mid, interior), loopSlice(*s, mid, end, edges)}, s->loc);
  }
  return cond ? lIf(simplify(cond), versioned, s, s->loc) : versioned;
}

class Split : public LoopMutator {
public:
  // Expressions are not rewritten here.
  Expr mutateExpr(const Expr &e) override { return e; }

protected:
  LStmtPtr mutateFor(const LStmtPtr &s) override {
    std::optional<std::pair<int64_t, int64_t>> trips = constBounds(s->extent);
    bool constantTrips = trips && trips->first == trips->second;
    if (s->forKind == ForKind::Serial && !constantTrips && splittable(s->body)) return split(s);
    return LoopMutator::mutateFor(s);
  }
};

} // namespace

LoweredFunc splitDeviceLoops(const LoweredFunc &f) {
  LoweredFunc out = f;
  out.body = Split().mutateStmt(f.body);
  return out;
}

} // namespace tk
