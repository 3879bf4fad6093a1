// Simplification of index arithmetic. Task-mapping lowering produces nests
// of div/mod and products of extents; simplifying them keeps the printed
// loop IR readable and lets checks prove bounds (0 <= idx < extent).
#pragma once
#include "ir/Expr.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace tk::ir {

// Inclusive constant bounds [lo, hi] of variables, by name (loop variables
// with constant extents, worker ids).
using VarBounds = std::map<std::string, std::pair<int64_t, int64_t>>;

// e = sum(coef * atom) + constant, with atoms that are not sums, not
// constants and not constant multiples; atoms are in canonical order
// (variables by name, then other atoms by their text) and pairwise distinct.
struct LinearForm {
  std::vector<std::pair<Expr, int64_t>> terms;
  int64_t constant = 0;
};
// Takes any integer expression; a non-linear subexpression becomes an atom.
LinearForm linearize(const Expr &e);
// Rebuilds the canonical sum, e.g. `i * 4 + j - 1`.
Expr fromLinear(const LinearForm &f, ScalarType type = ScalarType::I64);

// e = coef * var + rest (rest's terms do not mention var).
struct VarTerm {
  int64_t coef = 0;
  LinearForm rest;
};
// `e` (simplified, then linearized) split on variable `var`: coef 0 when
// var does not appear; nullopt when it appears non-linearly (inside a
// product of variables, a division, min, ...).
std::optional<VarTerm> splitOnVar(const Expr &e, const std::string &var);

// Constant bounds of an integer expression, when derivable from `bounds`.
std::optional<std::pair<int64_t, int64_t>> constBounds(const Expr &e, const VarBounds *bounds = nullptr);

// Returns an equivalent expression: integer constants folded, x*1 / x+0 /
// x/1 / x%1 removed, sums in canonical order with like terms combined,
// (a*c + b)/c -> a + b/c and (a*c + b) % c -> b % c (then b/c -> 0 and
// b % c -> b when 0 <= b < c is provable), (x/a)/b -> x/(a*b),
// (x % a) % b -> x % b when b divides a, min/max/comparisons/logic of
// constants (or of provably ordered operands) folded, select of a constant
// condition resolved. Floating-point arithmetic is left alone. Never throws.
Expr simplify(const Expr &e, const VarBounds *bounds = nullptr);

// True when `e` simplifies to the integer constant `value`.
bool provablyEquals(const Expr &e, int64_t value, const VarBounds *bounds = nullptr);

} // namespace tk::ir
