#include "scheduler/FreshNames.h"

namespace tk {
using namespace ir;

FreshNames::FreshNames(const Op &op, const Assign &a) {
  used_.insert(op.symbols.begin(), op.symbols.end());
  for (const Param &p : op.inputs) used_.insert(p.name);
  for (const TensorPtr &t : op.outputs) used_.insert(t->name);
  for (const IndexVar &v : a.vars) used_.insert(v.name);
  visitExpr(a.value, [&](const Expr &n) {
    for (const IndexVar &v : n->rvars) used_.insert(v.name);
  });
}

std::string FreshNames::operator()(const std::string &base) {
  std::string name = base;
  for (int i = 1; used_.count(name); ++i) name = base + "_" + std::to_string(i);
  used_.insert(name);
  return name;
}

} // namespace tk
