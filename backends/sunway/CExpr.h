// C99 text of loop-IR expressions for the Sunway sources, with the
// semantics of docs/abi.md (floor division, saturating conversions, f16
// and bf16 computed in float and rounded where stored or cast, lazily
// evaluated guarded loads) through the helpers of CPrelude.h.
#pragma once
#include "ir/Expr.h"

#include <map>
#include <set>
#include <string>

namespace tk::sunway {

// C identifiers for the variables and tensors of one function: each .tk
// name maps to one identifier that is a valid C name, no C keyword and no
// other name's identifier.
class CNames {
public:
  const std::string &var(const std::string &name) { return get("v:" + name, name); }
  const std::string &tensor(const ir::TensorDecl *t);
  // A new identifier no name maps to, derived from `base`.
  std::string fresh(const std::string &base);

private:
  const std::string &get(const std::string &key, const std::string &base);
  std::map<std::string, std::string> ids_;
  std::map<const ir::TensorDecl *, std::string> tensors_;
  std::set<std::string> used_;
};

// The C type an expression of type `t` is computed in (f16/bf16: float,
// bool: int); a tensor stores backends/common/CHeader.h's cTypeName.
std::string cValueType(ir::ScalarType t);

// The C expression for `e`.
std::string cExpr(const ir::Expr &e, CNames &names);
// The row-major flat offset of `indices` in `t` (whose extents are
// expressions over the function's symbols).
std::string cOffset(const ir::TensorDecl &t, const std::vector<ir::Expr> &indices, CNames &names);
// `value` (an expression of type `from`) as the bits `to`'s tensors store.
std::string cStored(const std::string &value, ir::ScalarType from, ir::ScalarType to);

} // namespace tk::sunway
