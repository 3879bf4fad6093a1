#include "scheduler/PredicateAccesses.h"

#include "ir/FlatIndex.h"
#include "ir/IRMutator.h"
#include "ir/IntArith.h"
#include "ir/Simplify.h"

#include <algorithm>
#include <map>
#include <set>

namespace tk {
using namespace ir;

namespace {

Expr zeroOf(ScalarType t) {
  if (t == ScalarType::Bool) return boolImm(false);
  return isFloat(t) ? floatImm(0, t) : intImm(0, t);
}

struct Guards {
  VarBounds bounds;                   // constant ranges of loop / let variables
  std::map<std::string, Expr> extent; // variables in [0, extent): loops from 0, lets of x % E or of such a variable
  std::set<std::string> nonNegative;  // loop variables starting at >= 0
  // Lets v = x / D with x in [0, extent[x]): v < X when extent[x] is X * D.
  std::map<std::string, std::pair<Expr, Expr>> quotient; // v -> (extent of x, D)
  // Expressions (printed, simplified) that are > 0 wherever the current
  // statement runs: the factors of an enclosing `for v in 0..A * B` whose
  // other factors are non-negative (the body runs only when A * B > 0).
  std::map<std::string, Expr> positive;
};

// A product as its constant factor and its other factors (by text, sorted),
// so that `M * 4`, `4 * M` and `(A * B) * C` vs `A * (C * B)` compare equal.
// False when the constant factor overflows int64: wrapped, `M * 274177 *
// 67280421310721` (M * (2^64 + 1)) would compare equal to M and drop a guard.
bool productFactors(const Expr &e, int64_t &c, std::vector<Expr> &atoms) {
  int64_t v;
  if (e->kind == ExprKind::Binary && e->binOp == BinOp::Mul)
    return productFactors(e->args[0], c, atoms) && productFactors(e->args[1], c, atoms);
  if (isConstInt(e, &v)) {
    std::optional<int64_t> p = checkedMul(c, v);
    c = p.value_or(0);
    return p.has_value();
  }
  atoms.push_back(e);
  return true;
}

bool sameProduct(const Expr &a, const Expr &b) {
  int64_t ca = 1, cb = 1;
  std::vector<Expr> ea, eb;
  if (!productFactors(simplify(a), ca, ea) || !productFactors(simplify(b), cb, eb)) return false; // not proven
  std::vector<std::string> fa, fb;
  for (const Expr &e : ea) fa.push_back(printExpr(e));
  for (const Expr &e : eb) fb.push_back(printExpr(e));
  std::sort(fa.begin(), fa.end());
  std::sort(fb.begin(), fb.end());
  return ca == cb && fa == fb;
}

bool guarded(const TensorPtr &t) { return t && t->role != TensorRole::Local; }

// e >= 0 by its structure: constants, loop variables starting at >= 0,
// shape symbols (InsertRuntimeChecks rejects negative ones at entry), and
// sums, products, floor divisions and modulos of such values.
bool provablyNonNegative(const Expr &e, const Guards &sc) {
  if (auto b = constBounds(e, &sc.bounds)) return b->first >= 0;
  if (!sc.positive.empty() && sc.positive.count(printExpr(simplify(e)))) return true;
  switch (e->kind) {
  case ExprKind::Var: return sc.nonNegative.count(e->name) > 0;
  case ExprKind::Cast: return provablyNonNegative(e->args[0], sc);
  case ExprKind::Binary: break;
  default: return false;
  }
  const Expr &a = e->args[0], &b = e->args[1];
  switch (e->binOp) {
  case BinOp::Add:
  case BinOp::Mul:
  case BinOp::Div:
  case BinOp::Mod:
  case BinOp::CDiv:
  case BinOp::Min: return provablyNonNegative(a, sc) && provablyNonNegative(b, sc);
  case BinOp::Max: return provablyNonNegative(a, sc) || provablyNonNegative(b, sc);
  case BinOp::Sub: {
    LinearForm f = linearize(e);
    if (f.constant < 0) return false;
    for (const auto &[atom, coef] : f.terms)
      if (coef < 0 || !provablyNonNegative(atom, sc)) return false;
    return true;
  }
  default: return false;
  }
}

// idx = v + rest for a loop variable v in [0, E) whose extent E is (a min
// of terms one of which is) at most X - rest: a blocked loop's
// `for c in 0..min(kc, C - cb*kc)` reading index c + cb*kc of extent C.
bool blockedBelow(const Expr &idx, const Expr &X, const Guards &sc) {
  for (const auto &[atom, coef] : linearize(simplify(idx)).terms) {
    auto it = atom->kind == ExprKind::Var && coef == 1 ? sc.extent.find(atom->name) : sc.extent.end();
    if (it == sc.extent.end()) continue;
    Expr rest = simplify(sub(idx, atom));
    if (mentionsVar(rest, atom->name)) continue;
    std::vector<Expr> bounds{it->second};
    for (size_t i = 0; i < bounds.size(); ++i)
      if (bounds[i]->kind == ExprKind::Binary && bounds[i]->binOp == BinOp::Min)
        bounds.insert(bounds.end(), bounds[i]->args.begin(), bounds[i]->args.end());
    for (const Expr &e : bounds) {
      auto d = constBounds(simplify(sub(add(e, rest), X)), &sc.bounds);
      if (d && d->second <= 0) return true;
    }
  }
  return false;
}

// Conjoins `0 <= idx && idx < X` to `g`, less the terms the enclosing
// loops and lets prove.
void rangeGuard(Expr &g, const Expr &idx, const Expr &X, const Guards &sc) {
  if (!provablyNonNegative(idx, sc)) g = conjoin(g, binary(BinOp::LE, intImm(0), idx));
  bool below = false;
  if (idx->kind == ExprKind::Var) {
    auto it = sc.extent.find(idx->name);
    below = it != sc.extent.end() && sameProduct(it->second, X);
    auto q = sc.quotient.find(idx->name);
    below |= q != sc.quotient.end() && sameProduct(q->second.first, mul(X, q->second.second));
  }
  int64_t x;
  auto b = constBounds(idx, &sc.bounds);
  below |= b && isConstInt(X, &x) && b->second < x;
  below = below || blockedBelow(idx, X, sc);
  if (!below) g = conjoin(g, binary(BinOp::LT, idx, X));
}

Expr guard(const TensorDecl &t, const std::vector<Expr> &indices, const Guards &sc) {
  // A flattened pair [e / S, e % S] over dimensions (d, d + 1) is in range
  // exactly when 0 <= e < H * S (ir/FlatIndex.h): one guard, linear in e,
  // which a vector loop over e turns into a lane mask, where guards on
  // e / S and e % S would be per-element branches.
  std::optional<FlatPair> flat = flatPairIndex(t, indices);
  Expr g;
  for (size_t d = 0; d < std::min(indices.size(), t.rank()); ++d) {
    if (flat && d == flat->dim) {
      rangeGuard(g, flat->index, simplify(mul(t.shape[d], t.shape[d + 1])), sc);
      ++d;
    } else {
      rangeGuard(g, indices[d], simplify(t.shape[d]), sc);
    }
  }
  return g ? simplify(g, &sc.bounds) : g;
}

// A loop `for v in 0..A * B * 4` runs its body only when the product is
// positive; if every factor but one is provably non-negative, every factor
// is positive there. This is what makes the extent E of a flattened
// spatial mapping (`for w in 0..N * E`, `let y = w % E`) usable as a bound
// when E is a shape expression such as `(H + 2*pad - R) / stride + 1`,
// whose sign the structure alone does not show.
void addPositiveFactors(const Expr &extent, Guards &sc) {
  int64_t c = 1;
  std::vector<Expr> atoms;
  if (!productFactors(simplify(extent), c, atoms) || c <= 0) return;
  size_t unproven = 0;
  for (const Expr &a : atoms) unproven += !provablyNonNegative(a, sc);
  if (unproven > 1) return;
  for (const Expr &a : atoms) sc.positive.emplace(printExpr(a), a);
}

// The guards the enclosing loop or let adds for its variable to `sc`.
Guards bindingGuards(const LStmt &s, const Guards &sc) {
  Guards inner = sc;
  inner.extent.erase(s.var);
  inner.bounds.erase(s.var);
  inner.nonNegative.erase(s.var);
  inner.quotient.erase(s.var);
  std::erase_if(inner.positive, [&](const auto &p) { return mentionsVar(p.second, s.var); });
  if (s.kind == LStmt::Kind::For) {
    int64_t lo, ext;
    if (isConstInt(s.min, &lo) && lo == 0) {
      inner.extent[s.var] = s.extent;
      addPositiveFactors(s.extent, inner);
    }
    if (provablyNonNegative(s.min, sc)) inner.nonNegative.insert(s.var);
    if (isConstInt(s.min, &lo) && isConstInt(simplify(s.extent), &ext) && ext > 0)
      if (std::optional<int64_t> hi = checkedAdd(lo, ext - 1)) inner.bounds[s.var] = {lo, *hi};
    return inner;
  }
  // The coordinates LowerTaskMappings binds: an alias of a loop variable,
  // x % E (in [0, E) for E > 0; E == 0 would already fault) and x / D for
  // x in [0, X * D).
  const Expr &v = s.value;
  if (v->kind == ExprKind::Var) {
    if (auto it = sc.extent.find(v->name); it != sc.extent.end()) inner.extent[s.var] = it->second;
    if (auto it = sc.quotient.find(v->name); it != sc.quotient.end()) inner.quotient[s.var] = it->second;
  } else if (v->kind == ExprKind::Binary && v->binOp == BinOp::Mod && provablyNonNegative(v->args[1], sc)) {
    inner.extent[s.var] = v->args[1];
  } else if (v->kind == ExprKind::Binary && v->binOp == BinOp::Div && v->args[0]->kind == ExprKind::Var &&
             provablyNonNegative(v->args[1], sc)) {
    if (auto it = sc.extent.find(v->args[0]->name); it != sc.extent.end())
      inner.quotient[s.var] = {it->second, v->args[1]};
  }
  if (auto b = constBounds(s.value, &sc.bounds)) inner.bounds[s.var] = *b;
  if (provablyNonNegative(s.value, sc)) inner.nonNegative.insert(s.var);
  return inner;
}

// Guards every load and store of a guarded tensor with the conditions the
// enclosing loops and lets do not prove; `guards_` holds what they prove
// around the current statement (innermost last).
class Predicate : public LoopMutator {
public:
  explicit Predicate(Guards outer) { guards_.push_back(std::move(outer)); }

  LStmtPtr mutateStmt(const LStmtPtr &s) override {
    LStmtPtr n = LoopMutator::mutateStmt(s);
    if (!n || !n->pred || n->pred->kind != ExprKind::BoolImm || !n->pred->intValue) return n;
    n = n == s ? std::make_shared<LStmt>(*s) : n;
    n->pred = nullptr;
    return n;
  }

protected:
  Expr mutateLoad(const Expr &e) override {
    Expr n = LoopMutator::mutateLoad(e);
    if (!guarded(n->tensor)) return n;
    Expr g = guard(*n->tensor, n->args, guards_.back());
    if (!g || (g->kind == ExprKind::BoolImm && g->intValue)) return n;
    auto m = std::make_shared<ExprNode>(*n);
    m->pred = conjoin(n->pred, g);
    if (!m->pad) m->pad = zeroOf(n->type);
    return m;
  }

  void enterScope(const LStmt &s) override {
    if (s.kind == LStmt::Kind::For || s.kind == LStmt::Kind::Let) guards_.push_back(bindingGuards(s, guards_.back()));
  }
  void leaveScope(const LStmt &s) override {
    if (s.kind == LStmt::Kind::For || s.kind == LStmt::Kind::Let) guards_.pop_back();
  }

  LStmtPtr mutateStore(const LStmtPtr &s) override {
    LStmtPtr n = LoopMutator::mutateStore(s);
    if (!guarded(s->tensor)) return n;
    n = n == s ? std::make_shared<LStmt>(*s) : n;
    n->pred = conjoin(n->pred, guard(*s->tensor, n->indices, guards_.back()));
    return n;
  }

  // atomic_add reads its value like a store and skips an out-of-range
  // target like one; the other GPU statements check their own operands
  // (none of their operands is guarded here).
  LStmtPtr mutateIntrinsic(const LStmtPtr &s) override {
    if (s->intrinsic != GpuIntrinsic::AtomicAdd) return s;
    auto n = std::make_shared<LStmt>(*s);
    n->operands[1] = mutateExpr(n->operands[1]);
    auto t = std::make_shared<ExprNode>(*n->operands[0]);
    for (Expr &i : t->args) i = mutateExpr(i);
    if (guarded(t->tensor)) n->pred = conjoin(n->pred, guard(*t->tensor, t->args, guards_.back()));
    n->operands[0] = t;
    return n;
  }

private:
  std::vector<Guards> guards_;
};

// Integer scalar parameters that a `where` clause bounds below by zero or
// more (`stride >= 1`, `pad >= 0`, also inside `&&`): InsertRuntimeChecks
// rejects other values at entry, before any access runs.
void whereNonNegative(const Expr &c, std::set<std::string> &out) {
  if (c->kind != ExprKind::Binary) return;
  if (c->binOp == BinOp::And) {
    whereNonNegative(c->args[0], out);
    whereNonNegative(c->args[1], out);
    return;
  }
  int64_t v;
  const Expr &a = c->args[0], &b = c->args[1];
  if (c->binOp == BinOp::GE && a->kind == ExprKind::Var && isConstInt(b, &v) && v >= 0) out.insert(a->name);
  if (c->binOp == BinOp::GT && a->kind == ExprKind::Var && isConstInt(b, &v) && v >= -1) out.insert(a->name);
  if (c->binOp == BinOp::LE && b->kind == ExprKind::Var && isConstInt(a, &v) && v >= 0) out.insert(b->name);
  if (c->binOp == BinOp::LT && b->kind == ExprKind::Var && isConstInt(a, &v) && v >= -1) out.insert(b->name);
}

} // namespace

LoweredFunc predicateAccesses(const LoweredFunc &f) {
  Guards sc;
  sc.nonNegative.insert(f.op->symbols.begin(), f.op->symbols.end());
  for (const Constraint &c : f.op->where) whereNonNegative(c.cond, sc.nonNegative);
  LoweredFunc out = f;
  out.body = Predicate(std::move(sc)).mutateStmt(f.body);
  return out;
}

} // namespace tk
