#include "scheduler/looptune/TuneNest.h"

#include "ir/Reduction.h"
#include "ir/Simplify.h"

#include <fmt/format.h>


namespace tk::looptune {
namespace {

std::optional<int64_t> constExtent(const ir::Expr &e) {
  ir::Expr s = ir::simplify(e);
  if (s->kind != ir::ExprKind::IntImm) return std::nullopt;
  return s->intValue;
}

bool isProduct(const ir::Expr &e) {
  return e->kind == ir::ExprKind::Binary && e->binOp == ir::BinOp::Mul;
}

} // namespace

std::optional<TuneNest> extractTuneNest(const ir::OpPtr &op, std::string *reason) {
  auto refuse = [&](const std::string &why) -> std::optional<TuneNest> {
    if (reason) *reason = why;
    return std::nullopt;
  };
  if (op->body.size() != 1 || !op->intermediates.empty())
    return refuse("op '" + op->name + "' has more than one statement");
  for (const ir::Param &p : op->inputs)
    if (p.isScalar()) return refuse("op '" + op->name + "' has a scalar parameter '" + p.name + "'");
  if (!op->where.empty()) return refuse("op '" + op->name + "' has 'where' constraints");
  const ir::Assign &a = op->body[0];
  if (a.value->type != a.target->dtype)
    return refuse("the value's type differs from the target's element type");
  TuneNest n;
  n.op = op;
  std::vector<ir::IndexVar> vars = a.vars;
  size_t targetVars = vars.size();
  if (a.value->kind == ir::ExprKind::Reduce) {
    if (a.value->reduceOp == ir::ReduceOp::Prod) return refuse("prod reductions are not tuned");
    if (ir::containsReduce(a.value->args[0])) return refuse("the reduction's body reduces again");
    vars.insert(vars.end(), a.value->rvars.begin(), a.value->rvars.end());
  } else if (ir::containsReduce(a.value)) {
    return refuse("a reduction is only part of the value");
  }
  if (vars.size() > static_cast<size_t>(kMaxLoops)) return refuse("more than 10 index variables");
  for (size_t i = 0; i < vars.size(); ++i) {
    std::optional<int64_t> e = constExtent(vars[i].extent);
    if (!e) return refuse("index variable '" + vars[i].name + "' has a non-constant extent");
    if (*e <= 0) return refuse("index variable '" + vars[i].name + "' has an empty range");
    n.vars.push_back({vars[i].name, *e, i >= targetVars});
    n.loops.push_back({static_cast<int>(i), 1});
  }
  if (n.loops.empty()) return refuse("op '" + op->name + "' has no loops");
  return n;
}

int64_t enclosingRange(const TuneNest &n, int l) {
  const NestLoop &loop = n.loops[l];
  for (int o = l - 1; o >= 0; --o)
    if (n.loops[o].var == loop.var) return n.loops[o].step;
  return n.vars[loop.var].extent;
}

int64_t loopSize(const TuneNest &n, int l) {
  int64_t r = enclosingRange(n, l), s = n.loops[l].step;
  return (r + s - 1) / s;
}

int64_t loopTail(const TuneNest &n, int l) { return enclosingRange(n, l) % n.loops[l].step; }

double nestFlops(const TuneNest &n) {
  double points = 1;
  for (const NestVar &v : n.vars) points *= static_cast<double>(v.extent);
  const ir::Expr &value = n.op->body[0].value;
  bool sumOfProducts = value->kind == ir::ExprKind::Reduce && value->reduceOp == ir::ReduceOp::Sum &&
                       isProduct(value->args[0]);
  return sumOfProducts ? 2 * points : points;
}

std::string printNest(const TuneNest &n) {
  std::string s;
  for (size_t l = 0; l < n.loops.size(); ++l) {
    if (l) s += ' ';
    if (static_cast<int>(l) == n.cursor) s += '>';
    s += n.vars[n.loops[l].var].name;
    if (n.loops[l].step != 1) s += fmt::format("@{}", n.loops[l].step);
  }
  return s;
}

} // namespace tk::looptune
