#include "ir/Simplify.h"

#include "ir/IRRewrite.h"

#include <algorithm>
#include <cmath>

namespace tk::ir {

static int64_t floorDivI(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
static int64_t floorModI(int64_t a, int64_t b) { return a - floorDivI(a, b) * b; }

static bool isIntExpr(const Expr &e) { return e && isInteger(e->type); }

// ---- linear forms ----

static void addTerm(LinearForm &f, const Expr &atom, int64_t coef) {
  for (auto &[a, c] : f.terms)
    if (sameExpr(a, atom)) {
      c += coef;
      return;
    }
  f.terms.push_back({atom, coef});
}

static void linearizeInto(const Expr &e, int64_t scale, LinearForm &f) {
  int64_t v;
  if (isConstInt(e, &v)) {
    f.constant += scale * v;
    return;
  }
  if (e->kind == ExprKind::Unary && e->unOp == UnOp::Neg && isIntExpr(e)) {
    linearizeInto(e->args[0], -scale, f);
    return;
  }
  if (e->kind == ExprKind::Binary && isIntExpr(e)) {
    const Expr &a = e->args[0], &b = e->args[1];
    switch (e->binOp) {
    case BinOp::Add:
      linearizeInto(a, scale, f);
      linearizeInto(b, scale, f);
      return;
    case BinOp::Sub:
      linearizeInto(a, scale, f);
      linearizeInto(b, -scale, f);
      return;
    case BinOp::Mul:
      if (isConstInt(b, &v)) return linearizeInto(a, scale * v, f);
      if (isConstInt(a, &v)) return linearizeInto(b, scale * v, f);
      break;
    default: break;
    }
  }
  addTerm(f, e, scale);
}

static bool atomLess(const Expr &a, const Expr &b) {
  bool av = a->kind == ExprKind::Var, bv = b->kind == ExprKind::Var;
  if (av != bv) return av;
  if (av) return a->name < b->name;
  return printExpr(a) < printExpr(b);
}

LinearForm linearize(const Expr &e) {
  LinearForm f;
  linearizeInto(e, 1, f);
  std::erase_if(f.terms, [](const auto &t) { return t.second == 0; });
  std::stable_sort(f.terms.begin(), f.terms.end(),
                   [](const auto &x, const auto &y) { return atomLess(x.first, y.first); });
  return f;
}

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

Expr fromLinear(const LinearForm &f, ScalarType type) {
  Expr out;
  for (const auto &[atom, coef] : f.terms) {
    int64_t mag = out && coef < 0 ? -coef : coef;
    Expr term = mag == 1 ? atom
                : mag == -1 ? unary(UnOp::Neg, atom)
                            : binary(BinOp::Mul, atom, intImm(mag, type));
    if (!out) out = term;
    else out = binary(coef < 0 ? BinOp::Sub : BinOp::Add, out, term);
  }
  if (!out) return intImm(f.constant, type);
  if (f.constant > 0) out = binary(BinOp::Add, out, intImm(f.constant, type));
  if (f.constant < 0) out = binary(BinOp::Sub, out, intImm(-f.constant, type));
  return out;
}

// ---- bounds ----

using Range = std::pair<int64_t, int64_t>;

static std::optional<Range> linearBounds(const LinearForm &f, const VarBounds *bounds);

std::optional<Range> constBounds(const Expr &e, const VarBounds *bounds) {
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
    int64_t c[4] = {x->first * y->first, x->first * y->second, x->second * y->first, x->second * y->second};
    return Range{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
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
    int64_t lo = coef * x->first, hi = coef * x->second;
    if (lo > hi) std::swap(lo, hi);
    r.first += lo;
    r.second += hi;
  }
  return r;
}

// ---- rules ----

namespace {
struct Rules {
  const VarBounds *bounds;

  Expr canonical(const Expr &e) { return fromLinear(linearize(e), e->type); }

  // floor(lin / c) and lin mod c for a positive constant c.
  Expr divMod(const Expr &e, bool isDiv, int64_t c) {
    LinearForm f = linearize(e->args[0]);
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
      if (rb && floorDivI(rb->first, c) == floorDivI(rb->second, c)) q.constant += floorDivI(rb->first, c);
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
    if (x->kind == ExprKind::Binary && x->binOp == BinOp::Div && isConstInt(x->args[1], &a) && a > 0)
      return binary(BinOp::Div, x->args[0], intImm(a * c, t));
    return binary(BinOp::Div, x, intImm(c, t));
  }

  Expr compare(const Expr &e) {
    const Expr &a = e->args[0], &b = e->args[1];
    if (!isIntExpr(a) || !isIntExpr(b)) return e;
    auto d = linearBounds(linearize(binary(BinOp::Sub, a, b)), bounds);
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
        if (s->intValue == (andOp ? 1 : 0)) return o;  // true && x, false || x
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
        return y == 1 ? a : divMod(e, true, y);
      }
      if (ca && cb && y != 0) return intImm(floorDivI(x, y), e->type);
      return e;
    case BinOp::Mod:
      if (cb && y > 0) return y == 1 ? intImm(0, e->type) : divMod(e, false, y);
      if (ca && cb && y != 0) return intImm(floorModI(x, y), e->type);
      return e;
    case BinOp::CDiv:
      if (ca && cb && y != 0) return intImm(-floorDivI(-x, y), e->type);
      if (cb && y == 1) return a;
      return e;
    case BinOp::Min:
    case BinOp::Max: {
      if (sameExpr(a, b)) return a;
      bool isMin = e->binOp == BinOp::Min;
      auto d = linearBounds(linearize(binary(BinOp::Sub, a, b)), bounds);
      if (d && d->second <= 0) return isMin ? a : b; // a <= b
      if (d && d->first >= 0) return isMin ? b : a;  // a >= b
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
      if (e->unOp == UnOp::Not && x->kind == ExprKind::Unary && x->unOp == UnOp::Not) return x->args[0];
      if (e->unOp == UnOp::Neg && isIntExpr(e)) return canonical(e);
      if (e->unOp == UnOp::Neg && x->kind == ExprKind::FloatImm) return floatImm(-x->floatValue, x->type);
      return e;
    }
    case ExprKind::Select:
      if (e->args[0]->kind == ExprKind::BoolImm) return e->args[0]->intValue ? e->args[1] : e->args[2];
      return e;
    case ExprKind::Cast: {
      int64_t v;
      if (isConstInt(e->args[0], &v) && isInteger(e->type)) return intImm(v, e->type);
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
