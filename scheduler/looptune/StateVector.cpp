#include "scheduler/looptune/StateVector.h"

#include "ir/IRVisitor.h"
#include "ir/Simplify.h"

#include <cmath>
#include <map>

namespace tk::looptune {
namespace {

// Flat element stride of one tensor access per index variable (by name),
// from the affine part of its indices; non-affine terms are ignored.
using Strides = std::map<std::string, int64_t>;

Strides accessStrides(const ir::TensorDecl &t, const std::vector<ir::Expr> &indices) {
  Strides s;
  int64_t rowStride = 1;
  for (size_t d = indices.size(); d-- > 0;) {
    ir::LinearForm f = ir::linearize(indices[d]);
    for (const auto &[atom, coef] : f.terms)
      if (atom->kind == ir::ExprKind::Var) s[atom->name] += coef * rowStride;
    ir::Expr extent = ir::simplify(t.shape[d]);
    rowStride *= extent->kind == ir::ExprKind::IntImm ? extent->intValue : 1;
  }
  return s;
}

// The loads of a value, outermost first. Only loads in operands and
// indices count, not those of a load's `else` value or guard: the feature
// vector the trained network expects.
class LoadStrides : public ir::ExprVisitor {
public:
  std::vector<Strides> out;

protected:
  void visitLoad(const ir::Expr &e) override {
    out.push_back(accessStrides(*e->tensor, e->args));
    walkExprs(e->args);
  }
};

std::vector<Strides> allAccesses(const TuneNest &n) {
  const ir::Assign &a = n.op->body[0];
  std::vector<ir::Expr> targetIdx;
  for (const ir::IndexVar &v : a.vars) targetIdx.push_back(ir::var(v.name, ir::VarKind::Index));
  LoadStrides loads;
  loads.out.push_back(accessStrides(*a.target, targetIdx));
  loads.walkExpr(a.value);
  return std::move(loads.out);
}

float log2Scaled(double v) { return static_cast<float>(std::log2(v) / 8.0); }

void histogram(float *bins, const std::vector<Strides> &accesses, const std::string &var, int64_t step,
               double weight) {
  double total = 0;
  for (const Strides &s : accesses) {
    auto it = s.find(var);
    if (it == s.end() || it->second == 0) continue;
    double stride = std::fabs(static_cast<double>(it->second)) * static_cast<double>(step);
    int bin = std::min(15, static_cast<int>(std::ceil(std::log2(stride))));
    bins[bin] += static_cast<float>(weight);
    total += weight;
  }
  if (total > 0)
    for (int b = 0; b < 16; ++b) bins[b] = static_cast<float>(bins[b] / total);
}

} // namespace

std::vector<float> stateVector(const TuneNest &n) {
  std::vector<float> v(kStateSize, 0.0f);
  std::vector<Strides> accesses = allAccesses(n);
  double trips = 1;
  int row = 0;
  for (int l = 0; l < static_cast<int>(n.loops.size()); ++l, ++row) {
    float *r = &v[row * kFeaturesPerLoop];
    int64_t size = loopSize(n, l);
    trips *= static_cast<double>(size);
    r[0] = l == n.cursor ? 1.0f : 0.0f;
    r[1] = log2Scaled(static_cast<double>(size));
    r[2] = log2Scaled(static_cast<double>(loopTail(n, l) + 1));
    r[3] = 1.0f;
    histogram(r + 4, accesses, n.vars[n.loops[l].var].name, n.loops[l].step, trips);
  }
  if (n.op->body[0].value->kind != ir::ExprKind::Reduce) return v;
  std::vector<Strides> target{accesses[0]};
  trips = 1;
  for (const NestVar &var : n.vars) {
    if (var.reduction || row >= kMaxLoops) continue;
    float *r = &v[row++ * kFeaturesPerLoop];
    trips *= static_cast<double>(var.extent);
    r[1] = log2Scaled(static_cast<double>(var.extent));
    r[2] = log2Scaled(1.0);
    histogram(r + 4, target, var.name, 1, trips);
  }
  return v;
}

} // namespace tk::looptune
