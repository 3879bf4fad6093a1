#include "ir/PrintTypes.h"

namespace tk::ir {

std::string printTensorType(const TensorDecl &t) {
  std::string s(scalarTypeName(t.dtype));
  s += '[';
  for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? ", " : "") + printExpr(t.shape[i]);
  return s + ']';
}

std::string printAccess(const TensorDecl &t, const std::vector<Expr> &indices) {
  std::string s = t.name + '[';
  for (size_t i = 0; i < indices.size(); ++i) s += (i ? ", " : "") + printExpr(indices[i]);
  return s + ']';
}

} // namespace tk::ir
