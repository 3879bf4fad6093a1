// FlatIndex: two adjacent dimensions of a tensor addressed as one. An
// access whose index pair at dimensions (d, d + 1) is [h + e' / S, e' % S],
// with S the extent of dimension d + 1, reads element e = h*S + e' of the
// view that merges the two into one dimension of extent H * S: with floor
// division and modulo (e' / S) * S + e' % S == e' for every integer e' and
// S != 0, so the pair's contribution to the linear address is
// e * (product of the extents after d + 1), and it is in bounds exactly
// when 0 <= e < H * S. (h is what simplification splits off for a constant
// S: (b*64 + x) / 16 becomes b*4 + x / 16.) ConstructConvolution's flat
// pixel version indexes images and outputs this way (the trailing pair),
// and merged reduction variables (scheduler/cpu/MergeReductionVars.h) any
// pair; PredicateAccesses guards such a pair as one index, and the backends
// address it without dividing (docs/construct.md, "Convolutions").
#pragma once
#include "ir/Expr.h"

#include <optional>
#include <vector>

namespace tk::ir {

// A merged pair of an access: the first of its two dimensions and the flat
// index e.
struct FlatPair {
  size_t dim = 0;
  Expr index;
};

// The first pair (d, d + 1) of `indices` (an access of `t`, one per
// dimension) of the form [h + e' / S, e' % S] where S, after
// simplification, is the same expression as t's extent d + 1 and h is
// linear (often absent); nullopt when there is none.
std::optional<FlatPair> flatPairIndex(const TensorDecl &t, const std::vector<Expr> &indices);

// The flat index e when the pair is the last two dimensions; null
// otherwise (rank < 2 included).
Expr flatTrailingIndex(const TensorDecl &t, const std::vector<Expr> &indices);

// The index that moves along the innermost dimension of memory: the flat
// trailing index when there is one, else the last index (null for rank 0).
Expr innermostIndex(const TensorDecl &t, const std::vector<Expr> &indices);

} // namespace tk::ir
