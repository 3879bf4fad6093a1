#include "ir/Simplify.h"

#include "ir/IRRewrite.h"
#include "ir/IntArith.h"

#include <algorithm>
#include <cmath>

namespace tk::ir {

// Floor division and modulo by a positive constant, which cannot overflow
// (ir/IntArith.h).
static int64_t floorDivI(int64_t a, int64_t b) { return foldIntBinary(BinOp::Div, a, b).value; }
static int64_t floorModI(int64_t a, int64_t b) { return foldIntBinary(BinOp::Mod, a, b).value; }

static bool isIntExpr(const Expr &e) { return e && isInteger(e->type); }

// Every rewrite keeps the type of the node it replaces: an operand of a
// narrower type (an i8 cast in an i64 difference, a bool in an i32 sum) is
// widened by a cast instead of taking the node's place, which would compute
// in its own width (`0 - i8(x)` is `-i64(i8(x))`, not `-i8(x)`, which wraps
// at -128).
static Expr asType(const Expr &e, ScalarType t) { return e->type == t ? e : cast(t, e); }

// i8 and i32 arithmetic wraps at a width that real values reach, where the
// exact reasoning of bounds and floor division does not hold; i64 index
// arithmetic is taken not to overflow.
static bool isNarrowInt(ScalarType t) { return isInteger(t) && t != ScalarType::I64; }

// ---- linear forms ----

// Coefficients and the constant are accumulated with overflow checks: a
// form that does not fit in int64 is not built (false), and the caller
// keeps the expression as one atom, folding nothing.
static bool addTerm(LinearForm &f, const Expr &atom, int64_t coef) {
  for (auto &[a, c] : f.terms)
    if (sameExpr(a, atom)) {
      std::optional<int64_t> sum = checkedAdd(c, coef);
      if (sum) c = *sum;
      return sum.has_value();
    }
  f.terms.push_back({atom, coef});
  return true;
}

// Sums, differences, negations and constant multiples are expanded only in
// the form's own type `t`: a narrower subexpression (an i8 sum inside an i64
// one) wraps at its own width, so it stays one atom.
static bool linearizeInto(const Expr &e, int64_t scale, LinearForm &f, ScalarType t) {
  int64_t v;
  if (isConstInt(e, &v)) {
    std::optional<int64_t> term = checkedMul(scale, v);
    std::optional<int64_t> sum = term ? checkedAdd(f.constant, *term) : std::nullopt;
    if (sum) f.constant = *sum;
    return sum.has_value();
  }
  if (e->type != t) return addTerm(f, e, scale);
  std::optional<int64_t> negScale = checkedMul(scale, -1);
  if (e->kind == ExprKind::Unary && e->unOp == UnOp::Neg && isIntExpr(e))
    return negScale && linearizeInto(e->args[0], *negScale, f, t);
  if (e->kind == ExprKind::Binary && isIntExpr(e)) {
    const Expr &a = e->args[0], &b = e->args[1];
    switch (e->binOp) {
    case BinOp::Add: return linearizeInto(a, scale, f, t) && linearizeInto(b, scale, f, t);
    case BinOp::Sub: return negScale && linearizeInto(a, scale, f, t) && linearizeInto(b, *negScale, f, t);
    case BinOp::Mul: {
      const Expr *other = isConstInt(b, &v) ? &a : isConstInt(a, &v) ? &b : nullptr;
      if (!other) break;
      std::optional<int64_t> s = checkedMul(scale, v);
      return s && linearizeInto(*other, *s, f, t);
    }
    default: break;
    }
  }
  return addTerm(f, e, scale);
}

static bool atomLess(const Expr &a, const Expr &b) {
  bool av = a->kind == ExprKind::Var, bv = b->kind == ExprKind::Var;
  if (av != bv) return av;
  if (av) return a->name < b->name;
  return printExpr(a) < printExpr(b);
}

// e as a linear form in type t (e itself one atom when e is of another type).
static LinearForm linearizeAs(const Expr &e, ScalarType t) {
  LinearForm f;
  if (!linearizeInto(e, 1, f, t)) return LinearForm{{{e, 1}}, 0};
  std::erase_if(f.terms, [](const auto &t) { return t.second == 0; });
  std::stable_sort(f.terms.begin(), f.terms.end(),
                   [](const auto &x, const auto &y) { return atomLess(x.first, y.first); });
  return f;
}

LinearForm linearize(const Expr &e) { return linearizeAs(e, e->type); }

std::optional<VarTerm> splitOnVar(const Expr &e, const std::string &var) {
  LinearForm f = linearize(simplify(e));
  VarTerm t;
  t.rest.constant = f.constant;
  for (const auto &[atom, coef] : f.terms) {
    if (atom->kind == ExprKind::Var && atom->name == var) t.coef += coef;
    else if (mentionsVar(atom, var)) return std::nullopt;
    else t.rest.terms.push_back({atom, coef});
  }
  return t;
}

// Atoms of another type are cast to `type`, so the sum is computed in it.
Expr fromLinear(const LinearForm &f, ScalarType type) {
  Expr out;
  for (const auto &[term0, coef] : f.terms) {
    Expr atom = asType(term0, type);
    // INT64_MIN has no magnitude: it is added as it is.
    bool subtract = out && coef < 0 && coef != INT64_MIN;
    int64_t mag = subtract ? -coef : coef;
    Expr term = mag == 1 ? atom
                : mag == -1 ? unary(UnOp::Neg, atom)
                            : binary(BinOp::Mul, atom, intImm(mag, type));
    if (!out) out = term;
    else out = binary(subtract ? BinOp::Sub : BinOp::Add, out, term);
  }
  if (!out) return intImm(f.constant, type);
  if (f.constant > 0 || f.constant == INT64_MIN) out = binary(BinOp::Add, out, intImm(f.constant, type));
  else if (f.constant < 0) out = binary(BinOp::Sub, out, intImm(-f.constant, type));
  return out;
}

// ---- bounds ----

using Range = std::pair<int64_t, int64_t>;

static std::optional<Range> linearBounds(const LinearForm &f, const VarBounds *bounds);

static std::optional<Range> exactBounds(const Expr &e, const VarBounds *bounds);

// Bounds of the exact value; unknown when that leaves e's type, where the
// computed value wraps (an i8 `x + 100` for x in [0, 100]).
std::optional<Range> constBounds(const Expr &e, const VarBounds *bounds) {
  std::optional<Range> r = exactBounds(e, bounds);
  if (r && (!fitsIntType(r->first, e->type) || !fitsIntType(r->second, e->type))) return std::nullopt;
  return r;
}

static std::optional<Range> exactBounds(const Expr &e, const VarBounds *bounds) {
  if (!e || !isIntExpr(e)) return std::nullopt;
  int64_t v;
  if (isConstInt(e, &v)) return Range{v, v};
  if (e->kind == ExprKind::Var) {
    if (!bounds) return std::nullopt;
    auto it = bounds->find(e->name);
    if (it == bounds->end()) return std::nullopt;
    return it->second;
  }
  if (e->kind == ExprKind::Unary && e->unOp == UnOp::Neg) return linearBounds(linearize(e), bounds);
  if (e->kind != ExprKind::Binary) return std::nullopt;
  const Expr &a = e->args[0], &b = e->args[1];
  switch (e->binOp) {
  case BinOp::Add:
  case BinOp::Sub: return linearBounds(linearize(e), bounds);
  case BinOp::Mul: {
    auto x = constBounds(a, bounds), y = constBounds(b, bounds);
    if (!x || !y) return std::nullopt;
    std::optional<int64_t> c[4] = {checkedMul(x->first, y->first), checkedMul(x->first, y->second),
                                   checkedMul(x->second, y->first), checkedMul(x->second, y->second)};
    if (!c[0] || !c[1] || !c[2] || !c[3]) return std::nullopt; // a bound beyond int64: unknown
    return Range{std::min({*c[0], *c[1], *c[2], *c[3]}), std::max({*c[0], *c[1], *c[2], *c[3]})};
  }
  case BinOp::Div:
    if (isConstInt(b, &v) && v > 0) {
      auto x = constBounds(a, bounds);
      if (!x) return std::nullopt;
      return Range{floorDivI(x->first, v), floorDivI(x->second, v)};
    }
    return std::nullopt;
  case BinOp::Mod:
    if (isConstInt(b, &v) && v > 0) {
      auto x = constBounds(a, bounds);
      if (x && x->first >= 0 && x->second < v) return x;
      return Range{0, v - 1};
    }
    return std::nullopt;
  case BinOp::Min:
  case BinOp::Max: {
    auto x = constBounds(a, bounds), y = constBounds(b, bounds);
    if (!x || !y) return std::nullopt;
    if (e->binOp == BinOp::Min) return Range{std::min(x->first, y->first), std::min(x->second, y->second)};
    return Range{std::max(x->first, y->first), std::max(x->second, y->second)};
  }
  default: return std::nullopt;
  }
}

static std::optional<Range> linearBounds(const LinearForm &f, const VarBounds *bounds) {
  Range r{f.constant, f.constant};
  for (const auto &[atom, coef] : f.terms) {
    if (atom->kind == ExprKind::Binary && (atom->binOp == BinOp::Add || atom->binOp == BinOp::Sub))
      return std::nullopt; // cannot happen for linearized atoms; avoids recursion loops
    auto x = constBounds(atom, bounds);
    if (!x) return std::nullopt;
    std::optional<int64_t> lo = checkedMul(coef, x->first), hi = checkedMul(coef, x->second);
    if (!lo || !hi) return std::nullopt;
    if (*lo > *hi) std::swap(lo, hi);
    lo = checkedAdd(r.first, *lo);
    hi = checkedAdd(r.second, *hi);
    if (!lo || !hi) return std::nullopt;
    r = {*lo, *hi};
  }
  return r;
}

// ---- rules ----

namespace {
struct Rules {
  const VarBounds *bounds;

  // The canonical sum; `e` itself when a coefficient or the constant does
  // not fit e's type (an i32 sum is not folded into a constant beyond i32).
  Expr canonical(const Expr &e) {
    LinearForm f = linearize(e);
    bool fits = fitsIntType(f.constant, e->type);
    for (const auto &[atom, coef] : f.terms) fits = fits && fitsIntType(coef, e->type);
    return fits ? fromLinear(f, e->type) : e;
  }

  // floor(lin / c) and lin mod c for a positive constant c.
  Expr divMod(const Expr &e, bool isDiv, int64_t c) {
    LinearForm f = linearizeAs(e->args[0], e->type);
    LinearForm q, r;
    for (const auto &[atom, coef] : f.terms) {
      if (coef % c == 0) q.terms.push_back({atom, coef / c});
      else r.terms.push_back({atom, coef});
    }
    q.constant = floorDivI(f.constant, c);
    r.constant = floorModI(f.constant, c);
    Expr rest = fromLinear(r, e->type);
    auto rb = constBounds(rest, bounds);
    if (isDiv) {
      Expr tail;
      std::optional<int64_t> shifted = rb ? checkedAdd(q.constant, floorDivI(rb->first, c)) : std::nullopt;
      if (shifted && floorDivI(rb->first, c) == floorDivI(rb->second, c)) q.constant = *shifted;
      else tail = nestedDiv(rest, c, e->type);
      Expr head = fromLinear(q, e->type);
      return tail ? canonical(binary(BinOp::Add, head, tail)) : head;
    }
    if (rb && rb->first >= 0 && rb->second < c) return rest;
    if (r.terms.empty()) return intImm(r.constant, e->type);
    // (x % a) % c -> x % c when c divides a.
    int64_t a;
    if (rest->kind == ExprKind::Binary && rest->binOp == BinOp::Mod && isConstInt(rest->args[1], &a) && a > 0 &&
        a % c == 0)
      return binary(BinOp::Mod, rest->args[0], intImm(c, e->type));
    return binary(BinOp::Mod, rest, intImm(c, e->type));
  }

  // (x / a) / c -> x / (a*c) for positive constants.
  Expr nestedDiv(const Expr &x, int64_t c, ScalarType t) {
    int64_t a;
    std::optional<int64_t> ac;
    if (x->kind == ExprKind::Binary && x->binOp == BinOp::Div && isConstInt(x->args[1], &a) && a > 0 &&
        (ac = checkedMul(a, c)))
      return binary(BinOp::Div, x->args[0], intImm(*ac, t));
    return binary(BinOp::Div, x, intImm(c, t));
  }

  // Bounds of a - b, exact. In a narrow type a and b must have known bounds
  // themselves: `x + 1 > x` is false for the largest i32 x.
  std::optional<Range> differenceBounds(const Expr &a, const Expr &b) {
    Expr d = binary(BinOp::Sub, a, b);
    if (isNarrowInt(d->type) && (!constBounds(a, bounds) || !constBounds(b, bounds))) return std::nullopt;
    return linearBounds(linearize(d), bounds);
  }

  Expr compare(const Expr &e) {
    const Expr &a = e->args[0], &b = e->args[1];
    if (!isIntExpr(a) || !isIntExpr(b)) return e;
    auto d = differenceBounds(a, b);
    if (!d) return e;
    auto [lo, hi] = *d;
    switch (e->binOp) {
    case BinOp::LT: if (hi < 0) return boolImm(true); if (lo >= 0) return boolImm(false); break;
    case BinOp::LE: if (hi <= 0) return boolImm(true); if (lo > 0) return boolImm(false); break;
    case BinOp::GT: if (lo > 0) return boolImm(true); if (hi <= 0) return boolImm(false); break;
    case BinOp::GE: if (lo >= 0) return boolImm(true); if (hi < 0) return boolImm(false); break;
    case BinOp::EQ: if (lo == 0 && hi == 0) return boolImm(true); if (lo > 0 || hi < 0) return boolImm(false); break;
    case BinOp::NE: if (lo == 0 && hi == 0) return boolImm(false); if (lo > 0 || hi < 0) return boolImm(true); break;
    default: break;
    }
    return e;
  }

  // x op y when exact in e's type; e unchanged on overflow or a division
  // by zero (left to run time, where it is undefined).
  Expr folded(const Expr &e, int64_t x, int64_t y) {
    FoldResult r = foldIntBinary(e->binOp, x, y, e->type);
    return r.ok() ? intImm(r.value, e->type) : e;
  }

  Expr binaryRule(const Expr &e) {
    const Expr &a = e->args[0], &b = e->args[1];
    int64_t x, y;
    bool ca = isConstInt(a, &x), cb = isConstInt(b, &y);
    if (isComparison(e->binOp)) return compare(e);
    if (isLogical(e->binOp)) {
      bool andOp = e->binOp == BinOp::And;
      for (int i = 0; i < 2; ++i) {
        const Expr &s = e->args[i], &o = e->args[1 - i];
        if (s->kind != ExprKind::BoolImm) continue;
        if (s->intValue == (andOp ? 1 : 0)) return asType(o, e->type); // true && x, false || x
        return boolImm(!andOp);                          // false && x, true || x
      }
      return e;
    }
    if (!isIntExpr(e)) return e;
    switch (e->binOp) {
    case BinOp::Add:
    case BinOp::Sub:
    case BinOp::Mul: return canonical(e);
    case BinOp::Div:
      if (cb && y > 0) {
        auto ab = constBounds(a, bounds);
        if (ab && ab->first >= 0 && ab->second < y) return intImm(0, e->type);
        if (y == 1) return asType(a, e->type);
        return isNarrowInt(e->type) ? e : divMod(e, true, y);
      }
      if (ca && cb) return folded(e, x, y);
      return e;
    case BinOp::Mod:
      if (cb && y > 0) {
        if (y == 1) return intImm(0, e->type);
        if (!isNarrowInt(e->type)) return divMod(e, false, y);
        auto ab = constBounds(a, bounds);
        return ab && ab->first >= 0 && ab->second < y ? asType(a, e->type) : e;
      }
      if (ca && cb) return folded(e, x, y);
      return e;
    case BinOp::CDiv:
      if (ca && cb) return folded(e, x, y);
      if (cb && y == 1) return asType(a, e->type);
      return e;
    case BinOp::Min:
    case BinOp::Max: {
      if (sameExpr(a, b)) return asType(a, e->type);
      bool isMin = e->binOp == BinOp::Min;
      auto d = differenceBounds(a, b);
      if (d && d->second <= 0) return asType(isMin ? a : b, e->type); // a <= b
      if (d && d->first >= 0) return asType(isMin ? b : a, e->type);  // a >= b
      return e;
    }
    default: return e;
    }
  }

  Expr operator()(const Expr &e) {
    switch (e->kind) {
    case ExprKind::Binary: return binaryRule(e);
    case ExprKind::Unary: {
      const Expr &x = e->args[0];
      if (e->unOp == UnOp::Not && x->kind == ExprKind::BoolImm) return boolImm(!x->intValue);
      // !!x is x != 0, the cast to bool (x itself when it is a bool).
      if (e->unOp == UnOp::Not && x->kind == ExprKind::Unary && x->unOp == UnOp::Not)
        return asType(x->args[0], e->type);
      if (e->unOp == UnOp::Neg && isIntExpr(e)) return canonical(e);
      if (e->unOp == UnOp::Neg && x->kind == ExprKind::FloatImm) return floatImm(-x->floatValue, x->type);
      return e;
    }
    case ExprKind::Select:
      if (e->args[0]->kind == ExprKind::BoolImm) return asType(e->args[0]->intValue ? e->args[1] : e->args[2], e->type);
      return e;
    case ExprKind::Cast: {
      int64_t v;
      if (isConstInt(e->args[0], &v) && isInteger(e->type)) return intImm(wrapToIntType(v, e->type), e->type);
      return e;
    }
    default: return e;
    }
  }
};
} // namespace

Expr simplify(const Expr &e, const VarBounds *bounds) {
  Rules rules{bounds};
  return transformExpr(e, [&](const Expr &n) { return rules(n); });
}

bool provablyEquals(const Expr &e, int64_t value, const VarBounds *bounds) {
  int64_t v;
  return isConstInt(simplify(e, bounds), &v) && v == value;
}

} // namespace tk::ir
