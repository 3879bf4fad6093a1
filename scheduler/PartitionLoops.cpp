#include "scheduler/PartitionLoops.h"
#include "ir/ByteDot.h"
#include "ir/FlatIndex.h"

#include "ir/IRMutator.h"
#include "ir/IRRewrite.h"
#include "ir/Simplify.h"
#include "scheduler/DropGuards.h"
#include "scheduler/EnclosingSerialLoops.h"

#include <set>

namespace tk {
using namespace ir;

namespace {


// `g` solved for v (DropGuards.h) when it is a window condition: the rest
// mentions an enclosing loop variable (unless anyRest).
std::optional<GuardRange> solve(const Expr &g, const std::string &v, const std::set<std::string> &outer,
                                bool anyRest = false) {
  std::optional<VarTerm> split = g->kind == ExprKind::Binary && isComparison(g->binOp) && isInteger(g->args[0]->type)
                                     ? splitOnVar(sub(g->args[0], g->args[1]), v)
                                     : std::nullopt;
  if (!split || (!anyRest && !mentionsAny(fromLinear(split->rest), outer))) return std::nullopt;
  return solveGuardAlong(g, v);
}

bool mentionsLoopVar(const Expr &e) {
  bool found = false;
  visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Var && n->varKind == VarKind::Loop; });
  return found;
}

// A condition on v at the edge of the iteration domain (a stencil's
// `0 <= j - 1`, `j + 1 < W`): affine in v, the rest constants and shape
// symbols only. Where it fails is a few iterations at either end whatever
// the schedule, so splitting them off is always worth it (a tile
// position's overshoot guard mentions the tile's variable and is left to
// VersionFullTiles).
std::optional<GuardRange> solveDomainEdge(const Expr &g, const std::string &v) {
  if (g->kind != ExprKind::Binary || !isComparison(g->binOp) || !isInteger(g->args[0]->type)) return std::nullopt;
  std::optional<VarTerm> split = splitOnVar(sub(g->args[0], g->args[1]), v);
  if (!split || split->coef == 0 || mentionsLoopVar(fromLinear(split->rest))) return std::nullopt;
  return solve(g, v, {}, true);
}

// The constant step of a load's last index along v (0: it ignores v or the
// load is not one; nullopt: v appears non-linearly). A trailing pair
// [e / S, e % S] is the one index e (ir/FlatIndex.h: the flat pixel rows of
// a 1x1 convolution), as the backend addresses it.
std::optional<int64_t> lastIndexStep(const Expr &e, const std::string &v) {
  if (e->kind != ExprKind::Load || e->args.empty()) return 0;
  std::optional<VarTerm> t = splitOnVar(innermostIndex(*e->tensor, e->args), v);
  if (!t) return std::nullopt;
  return t->coef;
}

// Whether the backend's register tiles take the store T = T (+) .. inside
// loop v, running its edges with lane masks (a split loop would not match
// them): T + a * b with a unit-stride factor along v (a contraction; a
// strided one, stride 2, is split), a byte-quad product whose quads' lane
// index has unit stride along v (ir/ByteDot.h), or T + X, max(T, X),
// min(T, X) with X read at unit stride, or at a stride from 2 to
// kMaxDeinterleavedStride from a tensor the function never writes
// (DeinterleaveStridedRows then gives it unit stride: pooling).
bool foldsIntoRegisterTile(const LStmtPtr &body, const std::string &v, const std::set<const TensorDecl *> &written) {
  bool found = false;
  visitLStmt(body, [&](const LStmt &n) {
    if (n.kind != LStmt::Kind::Store || !n.value || n.value->kind != ExprKind::Binary) return;
    BinOp op = n.value->binOp;
    if (op != BinOp::Add && op != BinOp::Max && op != BinOp::Min) return;
    // An accumulation reads its own element: T = T (+) x.
    bool accumulates = false;
    for (const Expr &term : n.value->args)
      accumulates |= term->kind == ExprKind::Load && term->tensor == n.tensor;
    if (!accumulates) return;
    for (const Expr &term : n.value->args) {
      if (std::optional<ByteDotLoads> dot = op == BinOp::Add ? matchByteDot(term) : std::nullopt) {
        const std::vector<Expr> &idx = dot->quads->args;
        std::optional<VarTerm> lane = idx.size() >= 2 ? splitOnVar(idx[idx.size() - 2], v) : std::nullopt;
        found |= lane && lane->coef == 1;
      } else if (op == BinOp::Add && term->kind == ExprKind::Binary && term->binOp == BinOp::Mul) {
        found |= lastIndexStep(term->args[0], v) == 1 || lastIndexStep(term->args[1], v) == 1;
      } else if (term->kind == ExprKind::Load && term->tensor != n.tensor) {
        std::optional<int64_t> step = lastIndexStep(term, v);
        found |= step == 1 || (step && *step >= 2 && *step <= kMaxDeinterleavedStride && !written.count(term->tensor.get()));
      }
    }
  });
  return found;
}

LStmtPtr partitionAlong(const LStmtPtr &s, const std::set<std::string> &outer);

// The loop split along its variable (partitionAlong), and versioned on its
// invariant guards when it has some: `if (guards) { the loop without them }
// else { the loop }`, each split the same way, so that a stencil's
// interior rows run an interior without any guard.
LStmtPtr partition(const LStmtPtr &s, const std::set<std::string> &outer, const std::set<const TensorDecl *> &written) {
  if (!storesAlong(s->body, s->var) || foldsIntoRegisterTile(s->body, s->var, written)) return s;
  std::set<std::string> texts;
  Expr invariant = invariantGuards(s, texts);
  if (!invariant) return partitionAlong(s, outer);
  auto hoisted = std::make_shared<LStmt>(*s);
  hoisted->body = dropGuards(s->body, texts);
  return lIf(simplify(invariant), partitionAlong(hoisted, outer), partitionAlong(s, outer), s->loc);
}

LStmtPtr partitionAlong(const LStmtPtr &s, const std::set<std::string> &outer) {
  std::set<std::string> proven;
  Expr lo = s->min, hi = simplify(add(s->min, s->extent));
  const Expr end = hi;
  visitLStmt(s->body, [&](const LStmt &n) {
    auto scan = [&](const Expr &e) {
      if (!e) return;
      visitExpr(e, [&](const Expr &ld) {
        if (ld->kind != ExprKind::Load || !ld->pred) return;
        std::vector<Expr> parts;
        guardConjuncts(ld->pred, parts);
        for (const Expr &g : parts) {
          std::string text = printExpr(g);
          if (proven.count(text)) continue;
          auto range = solve(g, s->var, outer);
          if (!range) range = solveDomainEdge(g, s->var);
          if (!range) continue;
          proven.insert(text);
          if (range->lower) lo = binary(BinOp::Max, lo, range->lower);
          if (range->upper) hi = binary(BinOp::Min, hi, range->upper);
        }
      });
    };
    scan(n.value);
    for (const Expr &i : n.indices) scan(i);
  });
  if (proven.empty()) return s;
  // Clamp: begin <= lo <= hi <= end, whatever the window's bounds.
  Expr mid0 = simplify(binary(BinOp::Min, lo, end));
  Expr mid1 = simplify(binary(BinOp::Max, binary(BinOp::Min, hi, end), mid0));
  return lBlock({loopSlice(*s, s->min, mid0, s->body), loopSlice(*s, mid0, mid1, dropGuards(s->body, proven)),
                 loopSlice(*s, mid1, end, s->body)},
                s->loc);
}

// Partitions the innermost serial loops of the tree it mutates.
class Partition : public LoopMutator {
public:
  explicit Partition(const std::set<const TensorDecl *> &written) : written_(written) {}
  // Expressions are not rewritten here.
  Expr mutateExpr(const Expr &e) override { return e; }

protected:
  LStmtPtr mutateFor(const LStmtPtr &s) override {
    if (s->forKind == ForKind::Serial && !containsLoop(s->body)) return partition(s, outer_.names(), written_);
    return LoopMutator::mutateFor(s);
  }

  // Serial loops only: a window offset (r, s) is a loop of its own, while a
  // tile position (a parallel task, a let) makes an overshoot guard.
  void enterScope(const LStmt &s) override { outer_.enterScope(s); }
  void leaveScope(const LStmt &s) override { outer_.leaveScope(s); }

private:
  const std::set<const TensorDecl *> &written_;
  EnclosingSerialLoops outer_;
};

} // namespace

bool containsLoop(const LStmtPtr &s) {
  bool found = false;
  visitLStmt(s, [&](const LStmt &n) { found |= n.kind == LStmt::Kind::For; });
  return found;
}

// A window loop (avgpool's s, reduced into one register) is a few
// iterations, and three copies of it would cost more than its guards.
bool storesAlong(const LStmtPtr &body, const std::string &v) {
  bool along = false;
  visitLStmt(body, [&](const LStmt &n) {
    if (n.kind == LStmt::Kind::Store)
      for (const Expr &i : n.indices) along |= mentionsVar(i, v);
  });
  return along;
}

bool isWindowCondition(const Expr &g, const std::string &v, const std::set<std::string> &outer) {
  return solve(g, v, outer).has_value();
}

LoweredFunc partitionLoops(const LoweredFunc &f) {
  LoweredFunc out = f;
  std::set<const TensorDecl *> written;
  visitLStmt(f.body, [&](const LStmt &n) {
    if (n.kind == LStmt::Kind::Store) written.insert(n.tensor.get());
  });
  out.body = Partition(written).mutateStmt(f.body);
  return out;
}

} // namespace tk
