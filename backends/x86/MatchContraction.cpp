#include "backends/x86/MatchContraction.h"

#include "backends/x86/LaneMask.h"
#include "ir/ByteDot.h"
#include "ir/FlatIndex.h"
#include "ir/Simplify.h"

#include <algorithm>
#include <functional>

namespace tk::x86 {

using ir::BinOp;
using ir::Expr;
using ir::ExprKind;
using ir::mentionsVar;
using ir::LStmt;

bool unitStrideIn(const Expr &e, const std::string &var) {
  std::optional<int64_t> c = laneStride(e, var);
  return c && *c == 1;
}

namespace {

// Collects the reason for the first failed condition.
struct Matcher {
  std::string *reason;
  bool fail(const std::string &why) {
    if (reason) *reason = why;
    return false;
  }

  // The last index moves with unit stride along `j`, the others ignore it.
  // A trailing pair [e / S, e % S] over t's last extent counts as one index
  // e (ir/FlatIndex.h): a flattened pixel row is contiguous in memory.
  bool unitStrideAccess(const ir::TensorDecl &t, const std::vector<Expr> &idx, const std::string &j) {
    Expr flat = ir::flatTrailingIndex(t, idx);
    size_t inner = flat ? 2 : 1;
    if (idx.size() < inner || !unitStrideIn(flat ? flat : idx.back(), j)) return false;
    for (size_t d = 0; d + inner < idx.size(); ++d)
      if (mentionsVar(idx[d], j)) return false;
    return true;
  }

  bool operand(const Expr &e, const ir::TensorDecl &acc) {
    if (e->kind != ExprKind::Load) return fail("an operand of the product is not a tensor element");
    if (e->tensor.get() == &acc) return fail("an operand reads the accumulated tensor");
    if (e->type != acc.dtype) return fail("operand and accumulator types differ");
    if (e->pad && !e->pred) return fail("an operand relies on implicit bounds padding");
    if (e->pad && e->pad->kind != ExprKind::FloatImm) return fail("an operand pads with a non-constant");
    return true;
  }
};

// The accumulator's store, contiguous along j and guarded by lane masks,
// moves with no reduction loop.
bool accumulatorContiguous(const ContractionNest &n, Matcher &m) {
  const LStmt &st = *n.store;
  const std::string &j = n.vecLoop->var;
  for (const LStmt *k : n.kLoops)
    for (const Expr &i : st.indices)
      if (mentionsVar(i, k->var)) return m.fail("the accumulated element moves with the reduction variable");
  bool predMovesWithK = std::any_of(n.kLoops.begin(), n.kLoops.end(),
                                    [&](const LStmt *k) { return st.pred && mentionsVar(st.pred, k->var); });
  if (predMovesWithK || !m.unitStrideAccess(*st.tensor, st.indices, j) || !laneMaskable(st.pred, j))
    return m.fail("the accumulator is not contiguous along the innermost loop");
  return true;
}

// T = T + u8(V[.., j, b]) * i32(X[.., b]) inside `for b in 0..4` (the
// innermost reduction loop), T i32: V's lane index has unit stride along j,
// X ignores j, neither is guarded, and b appears only as their last index.
std::optional<ContractionNest> matchByteQuads(ContractionNest n, Matcher &m) {
  const LStmt &st = *n.store;
  const Expr &v = st.value;
  const LStmt *quad = n.kLoops.back();
  int64_t extent = 0, first = -1;
  if (n.kLoops.size() < 2 || !ir::isConstInt(quad->extent, &extent) || extent != 4 ||
      !ir::isConstInt(quad->min, &first) || first != 0) {
    m.fail("an i32 accumulation is not a byte-quad product (no innermost reduction loop over 0..4)");
    return std::nullopt;
  }
  std::optional<ir::ByteDotLoads> dot;
  for (int side = 0; v->kind == ExprKind::Binary && v->binOp == BinOp::Add && side < 2 && !dot; ++side) {
    const Expr &a = v->args[side];
    bool isAcc = a->kind == ExprKind::Load && a->tensor == st.tensor && a->args.size() == st.indices.size();
    for (size_t d = 0; isAcc && d < a->args.size(); ++d) isAcc = ir::sameExpr(a->args[d], st.indices[d]);
    if (isAcc && (dot = ir::matchByteDot(v->args[1 - side]))) n.accLoad = a;
  }
  const std::string &j = n.vecLoop->var, &b = quad->var;
  if (!dot || (n.accLoad->pred && !(st.pred && ir::sameExpr(n.accLoad->pred, st.pred)))) {
    m.fail("the store is not T[..] = T[..] + u8(V[.., j, b]) * i32(X[.., b])");
    return std::nullopt;
  }
  n.quadLoop = quad;
  n.kLoops.pop_back();
  n.vec = dot->quads;
  n.bcast = dot->broadcast;
  auto onlyLast = [&](const Expr &l) {
    if (l->pred || l->pad || !ir::sameExpr(l->args.back(), ir::var(b, ir::VarKind::Loop))) return false;
    for (size_t d = 0; d + 1 < l->args.size(); ++d)
      if (mentionsVar(l->args[d], b)) return false;
    return true;
  };
  const std::vector<Expr> &vi = n.vec->args;
  bool vecLanes = vi.size() >= 2 && unitStrideIn(vi[vi.size() - 2], j);
  for (size_t d = 0; vecLanes && d + 2 < vi.size(); ++d) vecLanes = !mentionsVar(vi[d], j);
  if (!onlyLast(n.vec) || !onlyLast(n.bcast) || !vecLanes || mentionsVar(n.bcast, j) || !n.prefetches.empty() ||
      mentionsVar(st.pred, b)) {
    m.fail("the byte quads are not one per lane along the innermost loop");
    return std::nullopt;
  }
  if (!accumulatorContiguous(n, m)) return std::nullopt;
  return n;
}

} // namespace

std::optional<ContractionNest> matchContraction(const LStmt &kLoop, std::string *reason) {
  Matcher m{reason};
  ContractionNest n;
  n.kLoop = &kLoop;
  if (kLoop.kind != LStmt::Kind::For || kLoop.forKind != ir::ForKind::Serial) {
    m.fail("not a serial loop");
    return std::nullopt;
  }
  // The perfect nest under kLoop: reduction loops, then an optional row
  // loop (one the accumulated element moves with), then the vector loop.
  // A loop's body may start with prefetches (kept for the innermost
  // reduction loop, checked below).
  std::vector<const LStmt *> chain{&kLoop};
  const LStmt *prefetching = nullptr;
  int prefetchingLoops = 0;
  auto inside = [&](const LStmt &loop) {
    const LStmt *b = ir::soleStmt(loop.body.get());
    if (!b || b->kind != LStmt::Kind::Block) return b;
    size_t p = 0;
    while (p < b->stmts.size() && b->stmts[p]->kind == LStmt::Kind::Prefetch) ++p;
    if (p == 0 || p + 1 != b->stmts.size()) return b;
    prefetching = &loop;
    ++prefetchingLoops;
    n.prefetches.assign(b->stmts.begin(), b->stmts.begin() + p);
    return ir::soleStmt(b->stmts[p].get());
  };
  const LStmt *next = inside(kLoop);
  while (next && next->kind == LStmt::Kind::For) {
    chain.push_back(next);
    next = inside(*next);
  }
  if (chain.size() < 2) {
    m.fail("the reduction loop does not hold exactly one loop");
    return std::nullopt;
  }
  if (!next || next->kind != LStmt::Kind::Store) {
    m.fail("the innermost loop body is not a single store");
    return std::nullopt;
  }
  n.vecLoop = chain.back();
  chain.pop_back();
  const LStmt *candidate = chain.size() >= 2 ? chain.back() : nullptr;
  if (candidate && std::any_of(next->indices.begin(), next->indices.end(),
                               [&](const Expr &i) { return mentionsVar(i, candidate->var); })) {
    if (!ir::isConstInt(candidate->extent, &n.rows) || n.rows < 1) {
      m.fail("the row loop's extent is not a positive constant");
      return std::nullopt;
    }
    n.rowLoop = candidate;
    chain.pop_back();
  }
  n.kLoops = chain;
  if (prefetching && (prefetchingLoops > 1 || prefetching != n.kLoops.back())) {
    m.fail("prefetches outside the innermost reduction loop");
    return std::nullopt;
  }
  if (n.vecLoop->forKind != ir::ForKind::Serial && n.vecLoop->forKind != ir::ForKind::Vectorized) {
    m.fail("the innermost loop is neither serial nor vectorized");
    return std::nullopt;
  }
  for (const LStmt *k : n.kLoops) {
    if (k->forKind != ir::ForKind::Serial) {
      m.fail("a reduction loop is not serial");
      return std::nullopt;
    }
    for (const LStmt *l : {n.rowLoop, n.vecLoop})
      if (l && (mentionsVar(l->min, k->var) || mentionsVar(l->extent, k->var))) {
        m.fail("inner loop bounds depend on the reduction variable");
        return std::nullopt;
      }
  }
  if (n.rowLoop && (mentionsVar(n.vecLoop->min, n.rowLoop->var) || mentionsVar(n.vecLoop->extent, n.rowLoop->var))) {
    m.fail("the innermost loop's bounds depend on the row variable");
    return std::nullopt;
  }
  n.store = next;
  const ir::TensorDecl &acc = *next->tensor;
  const std::string &j = n.vecLoop->var;
  if (acc.dtype == ir::ScalarType::I32) return matchByteQuads(n, m);
  if (acc.dtype != ir::ScalarType::F32 && acc.dtype != ir::ScalarType::F64) {
    m.fail("the accumulator is not f32, f64 or an i32 of byte-quad products");
    return std::nullopt;
  }
  const Expr &v = next->value;
  bool folds = v->kind == ExprKind::Binary && (v->binOp == BinOp::Add || v->binOp == BinOp::Max || v->binOp == BinOp::Min);
  for (int side = 0; folds && side < 2 && !n.accLoad; ++side) {
    const Expr &a = v->args[side], &p = v->args[1 - side];
    bool isAcc = a->kind == ExprKind::Load && a->tensor.get() == &acc && a->args.size() == next->indices.size();
    for (size_t d = 0; isAcc && d < a->args.size(); ++d) isAcc = ir::sameExpr(a->args[d], next->indices[d]);
    if (!isAcc) continue;
    n.accLoad = a;
    n.fold = v->binOp;
    if (v->binOp == BinOp::Add && p->kind == ExprKind::Binary && p->binOp == BinOp::Mul) {
      n.bcast = p->args[0];
      n.vec = p->args[1];
    } else {
      n.vec = p;
    }
  }
  if (!n.accLoad) {
    m.fail("the store is not T[..] = T[..] + X * Y, T[..] + X, max(T[..], X) or min(T[..], X)");
    return std::nullopt;
  }
  if (n.accLoad->pred && !(next->pred && ir::sameExpr(n.accLoad->pred, next->pred))) {
    m.fail("the accumulator is read under another guard than it is written");
    return std::nullopt;
  }
  // A loop the accumulated element does not move with is a reduction
  // loop (each row keeps its own accumulators), so every element stays in
  // one register across all of them.
  if (!accumulatorContiguous(n, m)) return std::nullopt;
  if ((n.bcast && !m.operand(n.bcast, acc)) || !m.operand(n.vec, acc)) return std::nullopt;
  if (n.bcast && mentionsVar(n.bcast, j)) std::swap(n.bcast, n.vec);
  if (n.bcast && mentionsVar(n.bcast, j)) {
    m.fail("both operands vary along the innermost loop");
    return std::nullopt;
  }
  if (!m.unitStrideAccess(*n.vec->tensor, n.vec->args, j) || !laneMaskable(n.vec->pred, j) || (n.vec->pad && mentionsVar(n.vec->pad, j))) {
    m.fail("the vector operand is not contiguous along the innermost loop");
    return std::nullopt;
  }
  return n;
}

// Whether `e` (may be null) reads a tensor: a value the tile's stores
// could change.
static bool readsMemory(const Expr &e) {
  bool loads = false;
  ir::visitExpr(e, [&](const Expr &x) { loads |= x->kind == ExprKind::Load; });
  return loads;
}

// The constant store of `init` when it is an initialisation of n's tile
// (tileStart), else null.
static const LStmt *initialStore(const LStmt &init, const ContractionNest &n) {
  const LStmt &st = *n.store;
  const std::vector<Expr> &idx = st.indices;
  const std::string &j = n.vecLoop->var;
  // Injective over (row, column): the column by unit stride (matched), the
  // row by an index affine in it that ignores the column. Otherwise two
  // rows could share an element across register blocks, and the second
  // block must read what the first one stored.
  bool rowsDistinct = !n.rowLoop || std::any_of(idx.begin(), idx.end(), [&](const Expr &i) {
    std::optional<int64_t> c = laneStride(i, n.rowLoop->var);
    return !mentionsVar(i, j) && c && *c != 0;
  });
  if (!rowsDistinct) return nullptr;
  // The same loops over the rows and columns, up to their variables' names.
  std::vector<std::pair<std::string, Expr>> rename;
  const LStmt *p = ir::soleStmt(&init);
  for (const LStmt *want : {n.rowLoop, n.vecLoop}) {
    if (!want) continue;
    if (!p || p->kind != LStmt::Kind::For ||
        (p->forKind != ir::ForKind::Serial && p->forKind != ir::ForKind::Vectorized) ||
        !ir::sameExpr(ir::substitute(p->min, rename), want->min) ||
        !ir::sameExpr(ir::substitute(p->extent, rename), want->extent))
      return nullptr;
    rename.push_back({p->var, ir::var(want->var, ir::VarKind::Loop)});
    p = ir::soleStmt(p->body.get());
  }
  // One constant to the same elements under the same guard. Guards are
  // index comparisons; one that read memory could change with the stores.
  bool constant = p && p->kind == LStmt::Kind::Store &&
                  (p->value->kind == ExprKind::FloatImm || p->value->kind == ExprKind::IntImm);
  if (!constant || p->tensor != st.tensor ||
      p->indices.size() != idx.size() || !p->pred != !st.pred)
    return nullptr;
  for (size_t d = 0; d < idx.size(); ++d)
    if (!ir::sameExpr(ir::substitute(p->indices[d], rename), idx[d])) return nullptr;
  if (st.pred && (readsMemory(st.pred) || !ir::sameExpr(ir::substitute(p->pred, rename), st.pred))) return nullptr;
  return p;
}

std::optional<TileStart> tileStart(const LStmt &init, const ContractionNest &n) {
  TileStart start;
  bool ok = true;
  // Each initialisation reached under `path` (null: always) is a case;
  // the paths of an if's branches exclude each other, so at most one case
  // holds, and none where a branch is missing.
  std::function<void(const LStmt *, const Expr &)> collect = [&](const LStmt *s, const Expr &path) {
    s = ir::soleStmt(s);
    if (!ok || !s) return;
    if (s->kind == LStmt::Kind::If) {
      // Evaluated once, before the tile: a condition that read memory could
      // change with the tile's stores.
      ok &= !readsMemory(s->cond);
      collect(s->thenS.get(), ir::conjoin(path, s->cond));
      if (s->elseS) collect(s->elseS.get(), ir::conjoin(path, ir::unary(ir::UnOp::Not, s->cond)));
      return;
    }
    const LStmt *p = initialStore(*s, n);
    ok &= p != nullptr;
    if (p) start.cases.push_back({path, p->value, p->stream});
  };
  collect(&init, nullptr);
  if (!ok || start.cases.empty()) return std::nullopt;
  // A case that may not hold leaves the tile to continue T's elements,
  // which a sum alone does after the loop (EmitRegisterTile).
  if (start.conditional() && n.fold != BinOp::Add) return std::nullopt;
  return start;
}

} // namespace tk::x86
