// Which elements of an output tensor a store writes, as affine functions of
// the iteration dimensions around it (one per factor of every enclosing
// task mapping and ordinary loop), and the two questions CheckTaskMappings
// asks about them: do distinct workers (or, for `=`, distinct iterations)
// write the same element, and is every element written?
#pragma once
#include "ir/MappingIR.h"

#include <string>
#include <vector>

namespace tk {

// One enclosing iteration dimension: a factor of a task mapping (for one
// mapping variable) or an ordinary loop, ranging over [0, extent).
struct IterDim {
  ir::Expr extent;
  bool parallel = false; // a spatial factor bound to a worker kind
  std::string userVar;   // the mapping / loop variable it contributes to
  std::string site;      // "spatial(4, 8) on threads, at 3:5"
};

// index = offset + sum(coef * iter) (+ a symbolic offset that is not tracked).
struct AffineIndex {
  std::vector<std::pair<size_t, int64_t>> terms; // iter position, coefficient
  int64_t offset = 0;
  bool symbolicOffset = false;
};

struct StoreAccess {
  const ir::MStmt *store = nullptr;
  std::vector<IterDim> iters;      // outermost first
  std::vector<AffineIndex> index;  // one per tensor dimension
  bool analyzable = false;         // false: not affine, or under an `if`
};

// False (and a located-message text in `reason`) when two workers may store
// to the same element, or, when `overwriteIsError` (plain `=` stores), two
// iterations of the same worker. Unprovable cases (symbolic extents in the
// middle of a mixed radix, an iteration variable in several dimensions)
// count as conflict-free.
bool storeIsConflictFree(const StoreAccess &a, bool overwriteIsError, std::string *reason);

enum class Coverage { Full, Partial, Unknown };
// Whether the stores of `a` reach every element of its tensor: per
// dimension, the covered range is the mixed radix of coefficients x extents
// from the offset; a symbolic outermost extent covers X when it is X (with
// coefficient 1) or cdiv(X, c') for c' <= its coefficient (overshoot is
// dropped by store predicates). `require`s mentioning a symbol of a
// dimension make a constant range unknown rather than partial.
Coverage storeCoverage(const StoreAccess &a, const std::vector<ir::Constraint> &requires_, std::string *reason);

} // namespace tk
