#include "frontend/driver/explain/ValueAt.h"

#include "ir/Simplify.h"

namespace tk::explain {

ValueAt::ValueAt(const std::map<std::string, int64_t> &sizes) {
  for (const auto &[name, v] : sizes) sizes_.emplace_back(name, ir::intImm(v));
}

ir::Expr ValueAt::bound(const ir::Expr &e, const Bindings &more) const {
  return ir::substitute(more.empty() ? e : ir::substitute(e, more), sizes_);
}

std::optional<int64_t> ValueAt::operator()(const ir::Expr &e, const Bindings &more) const {
  ir::Expr c = ir::simplify(bound(e, more));
  if (c->kind == ir::ExprKind::BoolImm) return c->intValue;
  int64_t v = 0;
  return ir::isConstInt(c, &v) ? std::optional(v) : std::nullopt;
}

} // namespace tk::explain
