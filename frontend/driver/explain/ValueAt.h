// Integer values of expressions at the report's sizes (shape symbols and
// scalar parameters), with more bindings where a picture needs them (loop
// variables, a lane): what the task grids, the banks, the DMA counts and
// the roofline of `tkc explain` evaluate.
#pragma once
#include "ir/Expr.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tk::explain {

class ValueAt {
public:
  using Bindings = std::vector<std::pair<std::string, ir::Expr>>;
  explicit ValueAt(const std::map<std::string, int64_t> &sizes);

  // `e` with `more` and then the sizes substituted.
  ir::Expr bound(const ir::Expr &e, const Bindings &more = {}) const;
  // Its value (a condition's as 0 or 1); nullopt when a name stays unknown
  // or the expression is not a constant after simplification.
  std::optional<int64_t> operator()(const ir::Expr &e, const Bindings &more = {}) const;

private:
  Bindings sizes_;
};

} // namespace tk::explain
