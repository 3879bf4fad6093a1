#include "ir/TensorSize.h"

#include "ir/IntArith.h"
#include "ir/Simplify.h"

#include <algorithm>

namespace tk::ir {

ConstantSize constantSize(const TensorDecl &t) {
  ConstantSize out;
  out.known = true;
  int64_t bound = scalarTypeBytes(t.dtype); // the constant extents as max(extent, 1)
  int64_t bytes = bound;
  for (const Expr &d : t.shape) {
    int64_t v = 0;
    if (!isConstInt(simplify(d), &v)) {
      out.known = false;
      continue;
    }
    if (out.tooLarge) continue; // still looking for symbolic extents (`known`)
    std::optional<int64_t> next = checkedMul(bound, std::max<int64_t>(v, 1));
    if (!next || *next > kMaxTensorBytes) {
      out.tooLarge = true;
      continue;
    }
    bound = *next;
    bytes *= std::max<int64_t>(v, 0); // <= bound
  }
  out.bytes = out.known && !out.tooLarge ? bytes : 0;
  return out;
}

} // namespace tk::ir
