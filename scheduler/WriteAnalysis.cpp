#include "scheduler/WriteAnalysis.h"

#include "ir/Simplify.h"

#include <algorithm>
#include <set>

namespace tk {
using namespace ir;

static std::optional<int64_t> constExtent(const IterDim &d) {
  int64_t v;
  if (isConstInt(simplify(d.extent), &v)) return v;
  return std::nullopt;
}

static bool isUnit(const IterDim &d) {
  auto e = constExtent(d);
  return e && *e <= 1;
}

static std::string tensorName(const StoreAccess &a) { return a.store->tensor->name; }

static bool conflict(const StoreAccess &a, size_t iter, std::string *reason) {
  const IterDim &d = a.iters[iter];
  if (reason)
    *reason = "writes conflict: workers differing in '" + d.userVar + "' (" + d.site + ") store to the same element of " +
              tensorName(a);
  return false;
}

static bool overwrite(const StoreAccess &a, size_t iter, std::string *reason) {
  const IterDim &d = a.iters[iter];
  if (reason)
    *reason = "store to " + tensorName(a) + " is not injective: iterations differing in '" + d.userVar + "' (" +
              d.site + ") write the same element; accumulate with '+=' or index " + tensorName(a) + " by '" +
              d.userVar + "'";
  return false;
}

bool storeIsConflictFree(const StoreAccess &a, bool overwriteIsError, std::string *reason) {
  if (!a.analyzable) return true;
  std::vector<int> dimsOf(a.iters.size(), 0);
  for (const AffineIndex &ix : a.index)
    for (const auto &[iter, coef] : ix.terms)
      if (coef != 0) ++dimsOf[iter];
  for (size_t i = 0; i < a.iters.size(); ++i) {
    if (dimsOf[i] != 0 || isUnit(a.iters[i])) continue;
    if (a.iters[i].parallel) return conflict(a, i, reason);
    if (overwriteIsError) return overwrite(a, i, reason);
  }
  for (int n : dimsOf)
    if (n > 1) return true; // diagonal-style access: not analysed
  for (const AffineIndex &ix : a.index) {
    std::vector<std::pair<size_t, int64_t>> terms;
    for (const auto &[iter, coef] : ix.terms)
      if (coef != 0 && !isUnit(a.iters[iter])) terms.push_back({iter, std::abs(coef)});
    std::stable_sort(terms.begin(), terms.end(), [](const auto &x, const auto &y) { return x.second < y.second; });
    int64_t reach = 0; // largest offset spanned by the smaller-stride iterations
    std::optional<size_t> parallelBelow;
    for (size_t k = 0; k < terms.size(); ++k) {
      auto [iter, coef] = terms[k];
      if (reach >= coef) {
        if (a.iters[iter].parallel) return conflict(a, iter, reason);
        if (parallelBelow) return conflict(a, *parallelBelow, reason);
        if (overwriteIsError) return overwrite(a, iter, reason);
      }
      if (a.iters[iter].parallel && !parallelBelow) parallelBelow = iter;
      auto e = constExtent(a.iters[iter]);
      if (!e) {
        if (k + 1 == terms.size()) break;
        return true; // symbolic extent inside the radix: not provable either way
      }
      reach += coef * (*e - 1);
    }
  }
  return true;
}

static bool mentionsAny(const Expr &e, const std::set<std::string> &names) {
  bool found = false;
  visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Var && names.count(n->name); });
  return found;
}

// Proves c * E + lo >= X for a symbolic outermost extent E.
static bool symbolicCovers(int64_t c, const Expr &E, int64_t lo, const Expr &X) {
  if (lo == 0 && sameExpr(E, X)) return true;
  int64_t cd;
  if (lo == 0 && E->kind == ExprKind::Binary && E->binOp == BinOp::CDiv && sameExpr(E->args[0], X) &&
      isConstInt(E->args[1], &cd) && cd > 0 && cd <= c)
    return true;
  int64_t diff;
  return isConstInt(simplify(sub(add(mul(intImm(c), E), intImm(lo)), X)), &diff) && diff >= 0;
}

// c * cdiv(X, c') with c < c' falls short of X for large X.
static bool tilesTooCoarse(int64_t c, const Expr &E, const Expr &X) {
  int64_t cd;
  return E->kind == ExprKind::Binary && E->binOp == BinOp::CDiv && sameExpr(E->args[0], X) &&
         isConstInt(E->args[1], &cd) && cd > c;
}

Coverage storeCoverage(const StoreAccess &a, const std::vector<Constraint> &requires_, std::string *reason) {
  if (!a.analyzable) return Coverage::Unknown;
  const TensorDecl &t = *a.store->tensor;
  std::string what = "mapping does not cover " + t.name + " dimension ";
  Coverage result = Coverage::Full;
  for (size_t d = 0; d < a.index.size() && d < t.rank(); ++d) {
    const AffineIndex &ix = a.index[d];
    Expr X = simplify(t.shape[d]);
    std::string dim = what + std::to_string(d) + ": ";
    std::vector<std::pair<size_t, int64_t>> terms;
    bool negative = false;
    for (const auto &[iter, coef] : ix.terms) {
      if (isUnit(a.iters[iter])) continue;
      negative |= coef < 0;
      terms.push_back({iter, coef});
    }
    if (ix.symbolicOffset || negative) {
      result = Coverage::Unknown;
      continue;
    }
    std::stable_sort(terms.begin(), terms.end(), [](const auto &x, const auto &y) { return x.second < y.second; });
    int64_t lo = ix.offset, reach = 1; // covers [lo, lo + reach)
    if (lo > 0) {
      if (reason) *reason = dim + "its stores start at index " + std::to_string(lo);
      return Coverage::Partial;
    }
    bool symbolicTop = false, unknown = false;
    for (size_t k = 0; k < terms.size() && !symbolicTop && !unknown; ++k) {
      auto [iter, coef] = terms[k];
      if (coef > reach) {
        if (reason)
          *reason = dim + "it skips indices: '" + a.iters[iter].userVar + "' (" + a.iters[iter].site + ") steps by " +
                    std::to_string(coef) + " but the iterations inside it cover only " + std::to_string(reach);
        return Coverage::Partial;
      }
      auto e = constExtent(a.iters[iter]);
      if (e) {
        reach += coef * (*e - 1);
      } else if (k + 1 == terms.size()) {
        symbolicTop = true;
        Expr E = simplify(a.iters[iter].extent);
        if (symbolicCovers(coef, E, lo, X)) continue;
        if (!tilesTooCoarse(coef, E, X)) {
          unknown = true;
          continue;
        }
        if (reason)
          *reason = dim + "it writes indices [0, " + printExpr(simplify(mul(intImm(coef), E))) +
                    ") but the dimension has " + printExpr(X) + " elements";
        return Coverage::Partial;
      } else {
        unknown = true;
      }
    }
    if (unknown) {
      result = Coverage::Unknown;
      continue;
    }
    if (symbolicTop) continue;
    int64_t top = lo + reach, x;
    if (isConstInt(X, &x) ? top >= x : false) continue;
    if (!isConstInt(X, &x)) {
      std::set<std::string> syms;
      visitExpr(X, [&](const Expr &n) {
        if (n->kind == ExprKind::Var) syms.insert(n->name);
      });
      bool constrained = std::any_of(requires_.begin(), requires_.end(),
                                     [&](const Constraint &c) { return mentionsAny(c.cond, syms); });
      if (constrained) {
        result = Coverage::Unknown;
        continue;
      }
    }
    if (reason)
      *reason = dim + "it writes indices [" + std::to_string(std::max<int64_t>(lo, 0)) + ", " + std::to_string(top) +
                ") but the dimension has " + printExpr(X) + " elements";
    return Coverage::Partial;
  }
  return result;
}

} // namespace tk
