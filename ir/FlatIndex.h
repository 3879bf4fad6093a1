// FlatIndex: a tensor's last two dimensions addressed as one. An access
// whose trailing index pair is [h + e' / S, e' % S], with S the tensor's
// last extent, reads element e = h*S + e' of the flattened [.., H * S] view:
// with floor division and modulo (e' / S) * S + e' % S == e' for every
// integer e' and S != 0, so the pair's linear address is (the other
// indices' linear address) * H * S + e, and it is in bounds exactly when
// 0 <= e < H * S. (h is what simplification splits off for a constant S:
// (b*64 + x) / 16 becomes b*4 + x / 16.) ConstructConvolution's flat pixel
// version indexes images and outputs this way; PredicateAccesses guards
// such a pair as one index, and the backends address it without dividing
// (docs/construct.md, "Convolutions").
#pragma once
#include "ir/Expr.h"

#include <vector>

namespace tk::ir {

// The flat index e when `indices` (an access of `t`, one per dimension)
// ends in [h + e' / S, e' % S] where S, after simplification, is the same
// expression as t's last extent and h is linear (often absent); null
// otherwise (rank < 2 included).
Expr flatTrailingIndex(const TensorDecl &t, const std::vector<Expr> &indices);

} // namespace tk::ir
