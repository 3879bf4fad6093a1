#include "scheduler/cpu/ConvolutionRoles.h"

#include "ir/Simplify.h"
#include "scheduler/Refusal.h"

#include <algorithm>
#include <set>

namespace tk {
using namespace ir;

bool analyseConvolution(const Op &op, ConvolutionRoles *out, std::string *reason) {
  if (op.body.size() != 1 || !op.intermediates.empty()) return refuse(reason, "the op has more than one statement");
  const Assign &a = op.body[0];
  if (a.vars.size() < 2) return refuse(reason, "the output has rank < 2");
  if (a.target->dtype != ScalarType::F32 && a.target->dtype != ScalarType::F64)
    return refuse(reason, "the output is not f32 or f64");
  const Expr &v = a.value;
  if (v->kind != ExprKind::Reduce || v->reduceOp != ReduceOp::Sum) return refuse(reason, "the value is not a sum");
  const Expr &prod = v->args[0];
  if (prod->kind != ExprKind::Binary || prod->binOp != BinOp::Mul) return refuse(reason, "the summand is not a product");
  for (const Expr &f : prod->args) {
    if (f->kind != ExprKind::Load || f->type != a.target->dtype)
      return refuse(reason, "a factor is not an element of a tensor of the output's type");
    if (f->tensor == a.target) return refuse(reason, "a factor reads the output");
  }
  ConvolutionRoles r;
  r.a = &a;
  r.xDim = a.vars.size() - 1;
  const std::string &x = a.vars[r.xDim].name;
  r.imgFirst = mentionsVar(prod->args[0], x);
  r.img = prod->args[r.imgFirst ? 0 : 1];
  r.filt = prod->args[r.imgFirst ? 1 : 0];
  if (!mentionsVar(r.img, x) || mentionsVar(r.filt, x))
    return refuse(reason, "not exactly one factor depends on the innermost output index");
  const std::vector<Expr> &idx = r.img->args;
  for (size_t d = 0; d + 1 < idx.size(); ++d)
    if (mentionsVar(idx[d], x)) return refuse(reason, "the innermost output index appears before the image's last index");
  if (r.img->pred) return refuse(reason, "the image factor is guarded");
  bool window = std::any_of(v->rvars.begin(), v->rvars.end(), [&](const IndexVar &k) { return mentionsVar(idx.back(), k.name); });
  if (!window) return refuse(reason, "the image's last index has no window (no reduction variable next to the output index)");

  std::vector<size_t> filterDims;
  for (size_t d = 0; d + 1 < a.vars.size(); ++d)
    if (mentionsVar(r.filt, a.vars[d].name)) filterDims.push_back(d);
  if (filterDims.size() != 1) return refuse(reason, "the filter factor does not depend on exactly one output index");
  r.fDim = filterDims[0];
  if (mentionsVar(r.img, a.vars[r.fDim].name)) return refuse(reason, "the filter's output index also indexes the image");

  // Scalar parameters multiplying an index variable in the image's last
  // index (stride, dilation): the unit-stride version fixes them to 1.
  std::set<std::string> scalars;
  for (const Param &p : op.inputs)
    if (p.isScalar() && isInteger(p.type)) scalars.insert(p.name);
  std::set<std::string> unit;
  for (const auto &[atom, coef] : linearize(simplify(idx.back())).terms) {
    if (atom->kind == ExprKind::Var) continue;
    visitExpr(atom, [&](const Expr &n) {
      if (n->kind == ExprKind::Var && scalars.count(n->name)) unit.insert(n->name);
    });
  }
  r.unitParams.assign(unit.begin(), unit.end());
  std::vector<std::pair<std::string, Expr>> ones;
  for (const std::string &p : r.unitParams) ones.push_back({p, intImm(1)});
  if (std::optional<VarTerm> t = splitOnVar(substitute(idx.back(), ones), x); !t || t->coef != 1)
    return refuse(reason, "the image's last index is not unit-stride in the innermost output index");

  // Window variables (those that share an image index with an output index)
  // loop outside the others, so the image's padding guards do not change in
  // the innermost reduction loop.
  auto windowVar = [&](const IndexVar &k) {
    return std::any_of(idx.begin(), idx.end(), [&](const Expr &i) {
      return mentionsVar(i, k.name) &&
             std::any_of(a.vars.begin(), a.vars.end(), [&](const IndexVar &o) { return mentionsVar(i, o.name); });
    });
  };
  for (const IndexVar &k : v->rvars)
    if (windowVar(k)) r.kOrder.push_back(k);
  r.windowVars = r.kOrder.size();
  for (const IndexVar &k : v->rvars)
    if (!windowVar(k)) r.kOrder.push_back(k);
  if (out) *out = std::move(r);
  return true;
}

std::optional<FlatPixels> flatPixels(const Op &op, const ConvolutionRoles &r, const Expr &img,
                               const std::vector<std::pair<std::string, Expr>> &given) {
  const Assign &a = *r.a;
  const std::vector<Expr> &idx = img->args;
  if (r.xDim == 0 || r.xDim - 1 == r.fDim || idx.size() < 2 || r.kOrder.size() == r.windowVars) return std::nullopt;
  FlatPixels fl;
  std::vector<std::pair<std::string, Expr>> fixed = given; // and the window extents, for the shape test
  auto require = [&](const Expr &e, int64_t v) {
    Expr s = simplify(e);
    int64_t c;
    if (isConstInt(s, &c)) return c == v;
    fl.cond = conjoin(fl.cond, binary(BinOp::EQ, s, intImm(v)));
    if (s->kind == ExprKind::Var) fixed.push_back({s->name, intImm(v)});
    return true;
  };
  for (size_t k = 0; k < r.windowVars; ++k) {
    if (!require(r.kOrder[k].extent, 1)) return std::nullopt;
    fl.values.push_back({r.kOrder[k].name, intImm(0)});
  }
  std::set<std::string> scalars, unit, zero;
  for (const Param &p : op.inputs)
    if (p.isScalar() && isInteger(p.type)) scalars.insert(p.name);
  for (size_t d = idx.size() - 2; d < idx.size(); ++d)
    for (const auto &[atom, coef] : linearize(simplify(idx[d])).terms)
      visitExpr(atom, [&](const Expr &n) {
        if (n->kind == ExprKind::Var && scalars.count(n->name)) (atom->kind == ExprKind::Var ? zero : unit).insert(n->name);
      });
  for (const std::string &p : unit) {
    if (zero.count(p)) return std::nullopt;
    require(var(p, VarKind::Symbol), 1);
    fl.values.push_back({p, intImm(1)});
  }
  for (const std::string &p : zero) {
    require(var(p, VarKind::Symbol), 0);
    fl.values.push_back({p, intImm(0)});
  }
  const std::string &y = a.vars[r.xDim - 1].name, &x = a.vars[r.xDim].name;
  auto is = [](const Expr &e, const std::string &v) { return e->kind == ExprKind::Var && e->name == v; };
  size_t n = idx.size();
  if (!is(simplify(substitute(idx[n - 2], fl.values)), y) || !is(simplify(substitute(idx[n - 1], fl.values)), x))
    return std::nullopt;
  for (size_t d = 0; d + 2 < n; ++d)
    if (mentionsVar(idx[d], y) || mentionsVar(idx[d], x)) return std::nullopt;
  // Same row length and row count; tested at run time unless the values
  // fixed above prove it (stdlib conv2d: (H + 2*pad - ..) / stride + 1 is H).
  fixed.insert(fixed.end(), fl.values.begin(), fl.values.end());
  const std::vector<Expr> &in = img->tensor->shape, &out = a.target->shape;
  for (size_t k = 1; k <= 2; ++k) {
    Expr o = simplify(out[out.size() - k]), i = simplify(in[in.size() - k]);
    if (!sameExpr(simplify(substitute(o, fixed)), simplify(substitute(i, fixed))))
      fl.cond = conjoin(fl.cond, binary(BinOp::EQ, o, i));
  }
  return fl;
}

} // namespace tk
