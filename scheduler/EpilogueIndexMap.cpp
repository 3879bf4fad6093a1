#include "scheduler/EpilogueIndexMap.h"

#include "ir/Simplify.h"
#include "scheduler/Refusal.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

namespace tk {
using namespace ir;

namespace {

// An integer polynomial over atoms, the normal form in which strides and
// extents are compared: `OH*OW`, `OW*OH` and `(OH)*(OW + 0)` are one
// polynomial, and `(H + 1)*W` expands to `H*W + W`. The simplifier's linear
// forms stop at products of symbols (each is an opaque atom), which is why
// products are expanded here. An atom is a variable or any subexpression
// that is not integer + - * (a division, a min, a load), keyed by its
// simplified text. Each term maps a monomial (its atoms' keys, sorted, a
// key repeated for a power) to a non-zero coefficient. `exact` is false when
// a coefficient overflowed or the expansion grew past kMaxTerms terms (or
// kMaxTerms^2 partial products): such a polynomial equals nothing, so a
// comparison with it refuses.
struct Poly {
  std::map<std::vector<std::string>, int64_t> terms;
  std::map<std::string, Expr> atoms;
  bool exact = true;
};

constexpr size_t kMaxTerms = 64;

void addTerm(Poly &p, const std::vector<std::string> &m, int64_t coef) {
  int64_t &c = p.terms[m];
  if (__builtin_add_overflow(c, coef, &c)) p.exact = false;
  if (c == 0) p.terms.erase(m);
  if (p.terms.size() > kMaxTerms) p.exact = false;
}

Poly constant(int64_t v) {
  Poly p;
  if (v != 0) p.terms[{}] = v;
  return p;
}

Poly sum(const Poly &a, const Poly &b, int64_t sign) {
  Poly r = a;
  r.exact = a.exact && b.exact;
  r.atoms.insert(b.atoms.begin(), b.atoms.end());
  for (const auto &[m, c] : b.terms) {
    int64_t s;
    if (__builtin_mul_overflow(c, sign, &s)) r.exact = false;
    else addTerm(r, m, s);
  }
  return r;
}

Poly product(const Poly &a, const Poly &b) {
  Poly r;
  r.exact = a.exact && b.exact && a.terms.size() * b.terms.size() <= kMaxTerms * kMaxTerms;
  if (!r.exact) return r;
  r.atoms = a.atoms;
  r.atoms.insert(b.atoms.begin(), b.atoms.end());
  for (const auto &[ma, ca] : a.terms)
    for (const auto &[mb, cb] : b.terms) {
      std::vector<std::string> m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      int64_t c;
      if (__builtin_mul_overflow(ca, cb, &c)) r.exact = false;
      else addTerm(r, m, c);
    }
  return r;
}

// Takes a simplified integer expression.
Poly polyOf(const Expr &e) {
  int64_t v;
  if (isConstInt(e, &v)) return constant(v);
  if (isInteger(e->type) && e->kind == ExprKind::Unary && e->unOp == UnOp::Neg)
    return sum(constant(0), polyOf(e->args[0]), -1);
  if (isInteger(e->type) && e->kind == ExprKind::Binary) {
    switch (e->binOp) {
    case BinOp::Add: return sum(polyOf(e->args[0]), polyOf(e->args[1]), 1);
    case BinOp::Sub: return sum(polyOf(e->args[0]), polyOf(e->args[1]), -1);
    case BinOp::Mul: return product(polyOf(e->args[0]), polyOf(e->args[1]));
    default: break;
    }
  }
  Poly p;
  std::string key = printExpr(e);
  p.atoms[key] = e;
  p.terms[{key}] = 1;
  return p;
}

Poly normalForm(const Expr &e) { return polyOf(simplify(e)); }

bool provablyEqual(const Poly &a, const Poly &b) { return a.exact && b.exact && a.terms == b.terms; }

// The polynomial as an expression, for messages.
Expr exprOf(const Poly &p) {
  LinearForm f;
  for (const auto &[m, c] : p.terms) {
    if (m.empty()) {
      f.constant = c;
      continue;
    }
    Expr t;
    for (const std::string &k : m) t = t ? binary(BinOp::Mul, t, p.atoms.at(k)) : p.atoms.at(k);
    f.terms.push_back({t, c});
  }
  return fromLinear(f);
}

Poly termOf(const Poly &p, const std::vector<std::string> &m, int64_t c) {
  Poly t;
  t.atoms = p.atoms;
  t.terms[m] = c;
  return t;
}

// One index of the read, split by variable: the coefficient of each of the
// statement's variables in it (in order of appearance, outermost as
// written first), and its terms without a variable.
struct SplitIndex {
  std::vector<std::pair<size_t, Poly>> coefs;
  Poly offset;
};

// The position in c.vars of the variable that atom `a` is, if it is one.
std::optional<size_t> varOf(const Assign &c, const Expr &a) {
  if (a->kind != ExprKind::Var || a->varKind != VarKind::Index) return std::nullopt;
  for (size_t v = 0; v < c.vars.size(); ++v)
    if (c.vars[v].name == a->name) return v;
  return std::nullopt;
}

// Takes index `e` of the read; returns its split, or the reason it is not a
// sum of variables times strides.
std::optional<SplitIndex> splitIndex(const Assign &c, const Expr &e, std::string *why) {
  Poly p = normalForm(e);
  if (!p.exact) return refuse(why, "it has too many terms or too large a coefficient to analyse"), std::nullopt;
  SplitIndex s;
  s.offset.atoms = p.atoms;
  for (const auto &[m, coef] : p.terms) {
    std::optional<size_t> var;
    std::vector<std::string> rest;
    bool single = true;
    for (const std::string &k : m) {
      const Expr &a = p.atoms.at(k);
      std::optional<size_t> v = varOf(c, a);
      bool mentions = std::any_of(c.vars.begin(), c.vars.end(), [&](const IndexVar &x) { return mentionsVar(a, x.name); });
      if (v && !var) var = v;
      else if (mentions) single = false;
      else rest.push_back(k);
    }
    if (!single)
      return refuse(why, "its term " + printExpr(exprOf(termOf(p, m, coef))) + " is not an index variable times a stride"),
             std::nullopt;
    if (!var) {
      s.offset.terms[m] = coef;
      continue;
    }
    // A coefficient with several monomials (`i*(H + 1)`) spans several terms.
    auto known = std::find_if(s.coefs.begin(), s.coefs.end(), [&](const auto &x) { return x.first == *var; });
    if (known == s.coefs.end()) s.coefs.push_back({*var, termOf(p, rest, coef)});
    else known->second = sum(known->second, termOf(p, rest, coef), 1);
  }
  if (!s.offset.terms.empty()) return refuse(why, "it is offset by " + printExpr(exprOf(s.offset))), std::nullopt;
  // Order of appearance, for messages: variables as written, left to right.
  std::vector<size_t> order;
  visitExpr(e, [&](const Expr &n) {
    if (auto v = varOf(c, n); v && std::find(order.begin(), order.end(), *v) == order.end()) order.push_back(*v);
  });
  auto pos = [&](size_t v) { return std::find(order.begin(), order.end(), v) - order.begin(); };
  std::sort(s.coefs.begin(), s.coefs.end(), [&](const auto &a, const auto &b) { return pos(a.first) < pos(b.first); });
  return s;
}

// The digit whose stride a refused flattening should name: the one that
// looks innermost among those left — the smallest constant stride, else the
// stride of lowest degree, else the one written last.
size_t likelyInnermost(const std::vector<std::pair<size_t, Poly>> &left) {
  auto degree = [](const Poly &p) {
    size_t d = 0;
    for (const auto &t : p.terms) d = std::max(d, t.first.size());
    return d;
  };
  auto value = [&](const Poly &p) { return degree(p) == 0 && !p.terms.empty() ? p.terms.begin()->second : INT64_MAX; };
  size_t best = left.size() - 1;
  for (size_t i = left.size() - 1; i-- > 0;) {
    const Poly &a = left[i].second, &b = left[best].second;
    if (std::make_pair(degree(a), value(a)) < std::make_pair(degree(b), value(b))) best = i;
  }
  return best;
}

std::string quoted(const Assign &c, size_t v) { return "'" + c.vars[v].name + "'"; }

// The product of the digits' extents, outermost first as one writes a
// stride (`H * W`); 1 for none.
Expr extentOf(const std::vector<RadixDigit> &digits) {
  Expr p = intImm(1);
  for (auto g = digits.rbegin(); g != digits.rend(); ++g) p = mul(p, g->extent);
  return p;
}

// Takes the split of index d of the read (described by `index`); orders
// its variables innermost first by chaining strides 1, e1, e1*e2, ..., and
// checks that their extents multiply to t's extent. Returns the digits, or
// the reason.
std::optional<std::vector<RadixDigit>> chainDigits(const Assign &c, const TensorPtr &t, size_t d, SplitIndex s,
                                                   const std::string &index, std::string *why) {
  std::vector<RadixDigit> digits;
  Poly expected = constant(1), extent = normalForm(t->shape[d]);
  std::string unproven = "cannot prove that " + index + " is a mixed-radix flattening: ";
  while (!s.coefs.empty()) {
    if (!expected.exact) return refuse(why, unproven + "its strides have too many terms once expanded"), std::nullopt;
    auto next = std::find_if(s.coefs.begin(), s.coefs.end(), [&](const auto &x) { return provablyEqual(x.second, expected); });
    if (next == s.coefs.end()) {
      const auto &[v, coef] = s.coefs[likelyInnermost(s.coefs)];
      return refuse(why, "it is not bijective: " + index + " is not a mixed-radix flattening: the stride of " +
                             quoted(c, v) + " is " + printExpr(exprOf(coef)) + ", expected " + printExpr(extentOf(digits))),
             std::nullopt;
    }
    const Expr &extent = c.vars[next->first].extent;
    digits.push_back({next->first, extentOf(digits), extent});
    expected = product(expected, normalForm(extent));
    s.coefs.erase(next);
  }
  if (!expected.exact || !extent.exact)
    return refuse(why, unproven + "the extents have too many terms once expanded"), std::nullopt;
  if (provablyEqual(extent, expected)) return digits;
  std::string dim =
      fmt::format("shape mismatch: dimension {} of '{}' has extent {} but ", d + 1, t->name, printExpr(t->shape[d]));
  if (digits.empty()) return refuse(why, dim + "it is read only at index 0"), std::nullopt;
  if (digits.size() == 1)
    return refuse(why, dim + quoted(c, digits[0].var) + " ranges over " + printExpr(digits[0].extent)), std::nullopt;
  std::string names;
  for (auto g = digits.rbegin(); g != digits.rend(); ++g) names += (names.empty() ? "" : ", ") + quoted(c, g->var);
  return refuse(why, dim + names + " range over " + printExpr(extentOf(digits)) + " together"), std::nullopt;
}

} // namespace

bool epilogueIndexMap(const Assign &c, const TensorPtr &t, const Expr &read, EpilogueIndexMap *out,
                      std::string *reason) {
  std::string itsRead = "its read of '" + t->name + "'";
  auto index = [&](size_t d) {
    return fmt::format("index {} of {} ({})", d + 1, itsRead, printExpr(read->args[d]));
  };
  std::vector<SplitIndex> split;
  std::vector<std::vector<size_t>> uses(c.vars.size());
  for (size_t d = 0; d < read->args.size(); ++d) {
    std::string why;
    std::optional<SplitIndex> s = splitIndex(c, read->args[d], &why);
    if (!s) return refuse(reason, "it is not bijective: " + index(d) + " is not a mixed-radix flattening: " + why);
    for (const auto &x : s->coefs) uses[x.first].push_back(d);
    split.push_back(std::move(*s));
  }
  for (size_t v = 0; v < c.vars.size(); ++v) {
    std::string var = "it is not bijective: variable " + quoted(c, v) + " of the statement ";
    if (uses[v].empty()) return refuse(reason, var + "does not appear in " + itsRead + " (a broadcast)");
    if (uses[v].size() > 1)
      return refuse(reason, fmt::format("{}appears in indices {} and {} of {}", var, uses[v][0] + 1, uses[v][1] + 1,
                                        itsRead));
  }
  EpilogueIndexMap map;
  for (size_t d = 0; d < split.size(); ++d) {
    std::optional<std::vector<RadixDigit>> digits = chainDigits(c, t, d, std::move(split[d]), index(d), reason);
    if (!digits) return false;
    map.push_back(std::move(*digits));
  }
  *out = std::move(map);
  return true;
}

std::vector<Expr> invertIndexMap(const EpilogueIndexMap &m, const std::vector<Expr> &idx) {
  size_t vars = 0;
  for (const auto &digits : m) vars += digits.size();
  std::vector<Expr> values(vars);
  for (size_t d = 0; d < m.size(); ++d) {
    const std::vector<RadixDigit> &digits = m[d];
    if (digits.size() == 1) {
      values[digits[0].var] = idx[d]; // a permutation's index, as is
      continue;
    }
    for (size_t k = 0; k < digits.size(); ++k) {
      Expr v = k == 0 ? idx[d] : floorDiv(idx[d], digits[k].stride);
      if (k + 1 < digits.size()) v = floorMod(v, digits[k].extent);
      values[digits[k].var] = simplify(v);
    }
  }
  return values;
}

} // namespace tk
