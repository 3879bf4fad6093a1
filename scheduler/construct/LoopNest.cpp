#include "scheduler/construct/LoopNest.h"

#include "ir/Simplify.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace tk::construct {
using namespace ir;

// A shape symbol's value when no --shape-hint gives one. It sizes only
// Gensor's states (the trace, --rank=measure and --rank=model
// candidates): with 128 or 8192 instead, the stdlib, the demo and the
// tutorial's constructed and hole-filled kernels compile to the same
// objects.
constexpr int64_t kDefaultSymbolValue = 1024;
// A window's extent (a convolution's R, S, a pooling's kernel): 3, the most
// common filter and pooling size. 1024 made a conv2d's filter as wide as its
// image (one output column) and 1 made a pooling window a copy.
constexpr int64_t kDefaultWindowValue = 3;

std::set<std::string> windowExtents(const Op &op) {
  std::set<std::string> out;
  for (const Assign &a : op.body) {
    std::set<std::string> outputVars;
    for (const IndexVar &v : a.vars) outputVars.insert(v.name);
    std::map<std::string, std::string> extentOf; // reduction variable -> the symbol or scalar bounding it
    visitExpr(a.value, [&](const Expr &x) {
      if (x->kind == ExprKind::Reduce)
        for (const IndexVar &v : x->rvars)
          if (v.extent->kind == ExprKind::Var) extentOf[v.name] = v.extent->name;
    });
    visitExpr(a.value, [&](const Expr &x) {
      if (x->kind != ExprKind::Load) return;
      for (const Expr &idx : x->args) {
        std::vector<std::string> reductions;
        bool output = false;
        visitExpr(idx, [&](const Expr &v) {
          if (v->kind != ExprKind::Var) return;
          output |= outputVars.count(v->name) > 0;
          if (extentOf.count(v->name)) reductions.push_back(extentOf[v->name]);
        });
        if (output) out.insert(reductions.begin(), reductions.end());
      }
    });
  }
  return out;
}

// Symbols and integer scalar parameters at their assumed values.
static std::vector<std::pair<std::string, Expr>> assumed(const Op &op, const std::map<std::string, int64_t> &shapes) {
  std::set<std::string> windows = windowExtents(op);
  auto value = [&](const std::string &name, int64_t otherwise) {
    auto it = shapes.find(name);
    if (it != shapes.end()) return it->second;
    return windows.count(name) ? kDefaultWindowValue : otherwise;
  };
  std::vector<std::pair<std::string, Expr>> map;
  for (const std::string &s : op.symbols) map.push_back({s, intImm(value(s, kDefaultSymbolValue))});
  for (const Param &p : op.inputs)
    if (p.isScalar() && isInteger(p.type)) map.push_back({p.name, intImm(value(p.name, 1))});
  return map;
}

std::map<std::string, int64_t> assumedValues(const Op &op, const std::map<std::string, int64_t> &shapes) {
  std::map<std::string, int64_t> out;
  for (const auto &[name, e] : assumed(op, shapes)) out[name] = e->intValue;
  return out;
}

int64_t evalExtent(const Op &op, const Expr &e, const std::map<std::string, int64_t> &shapes) {
  int64_t v = 1;
  if (!isConstInt(simplify(substitute(e, assumed(op, shapes))), &v)) return kDefaultSymbolValue;
  return std::max<int64_t>(v, 1);
}

double LoopNest::points() const {
  double p = 1;
  for (const LoopDim &d : dims) p *= static_cast<double>(d.extent);
  return p;
}

std::vector<double> LoopNest::spans(const Access &a, const std::vector<int64_t> &tile) const {
  std::vector<double> out;
  for (size_t t = 0; t < a.coef.size(); ++t) {
    if (!a.affine[t]) {
      out.push_back(static_cast<double>(a.extent[t]));
      continue;
    }
    double span = 1;
    for (size_t d = 0; d < dims.size(); ++d) span += static_cast<double>(std::llabs(a.coef[t][d])) * (tile[d] - 1);
    out.push_back(std::min(span, static_cast<double>(a.extent[t])));
  }
  return out;
}

double LoopNest::footprint(const Access &a, const std::vector<int64_t> &tile) const {
  double elems = 1;
  for (double s : spans(a, tile)) elems *= s;
  return elems;
}

double LoopNest::footprintBytes(const std::vector<int64_t> &tile) const {
  double bytes = 0;
  for (const Access &a : accesses) bytes += footprint(a, tile) * a.elemBytes;
  return bytes;
}

double LoopNest::trafficBytes(const std::vector<int64_t> &tile, const std::vector<int64_t> &parent) const {
  double tiles = 1, outputLoads = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    double e = static_cast<double>(dims[d].extent);
    tiles *= std::ceil(e / static_cast<double>(tile[d]));
    outputLoads *= std::ceil(e / static_cast<double>(dims[d].reduction ? parent[d] : tile[d]));
  }
  double bytes = 0;
  for (const Access &a : accesses) bytes += (a.write ? outputLoads : tiles) * footprint(a, tile) * a.elemBytes;
  return bytes;
}

int LoopNest::vectorDim() const {
  int last = -1;
  for (size_t d = 0; d < dims.size(); ++d)
    if (!dims[d].reduction) last = static_cast<int>(d);
  return last;
}

namespace {

struct Builder {
  const Op &op;
  const std::map<std::string, int64_t> &shapes;
  LoopNest nest;
  std::map<std::string, size_t> dimIndex;

  void addDim(const IndexVar &v, bool reduction) {
    if (dimIndex.count(v.name)) return;
    dimIndex[v.name] = nest.dims.size();
    nest.dims.push_back({v.name, evalExtent(op, v.extent, shapes), reduction});
  }

  Access access(const TensorPtr &t, const std::vector<Expr> &indices, bool write) {
    Access a;
    a.tensor = t->name;
    a.elemBytes = scalarTypeBytes(t->dtype);
    a.write = write;
    // Scalar parameters (a convolution's stride) become constants, so
    // `y*stride + r` is affine in y and r.
    auto values = assumed(op, shapes);
    for (size_t i = 0; i < indices.size(); ++i) {
      std::vector<int64_t> coef(nest.dims.size(), 0);
      bool affine = true;
      for (const auto &[atom, c] : linearize(simplify(substitute(indices[i], values))).terms) {
        auto it = atom->kind == ExprKind::Var ? dimIndex.find(atom->name) : dimIndex.end();
        if (it != dimIndex.end()) coef[it->second] += c;
        else affine = false;
      }
      a.coef.push_back(std::move(coef));
      a.affine.push_back(affine);
      a.extent.push_back(i < t->shape.size() ? evalExtent(op, t->shape[i], shapes) : 1);
    }
    return a;
  }
};

double countFlops(const Expr &e) {
  double n = 0;
  visitExpr(e, [&](const Expr &x) {
    if (x->kind == ExprKind::Binary || x->kind == ExprKind::Call || x->kind == ExprKind::Reduce) n += 1;
  });
  return std::max(n, 1.0);
}

double statementPoints(const Op &op, const Assign &a, const std::map<std::string, int64_t> &shapes) {
  double p = 1;
  for (const IndexVar &v : a.vars) p *= static_cast<double>(evalExtent(op, v.extent, shapes));
  visitExpr(a.value, [&](const Expr &x) {
    if (x->kind == ExprKind::Reduce)
      for (const IndexVar &v : x->rvars) p *= static_cast<double>(evalExtent(op, v.extent, shapes));
  });
  return p;
}

} // namespace

LoopNest buildLoopNest(const Op &op, const std::map<std::string, int64_t> &shapes) {
  const Assign *main = nullptr;
  double best = -1;
  for (const Assign &a : op.body)
    if (double p = statementPoints(op, a, shapes); p > best) best = p, main = &a;
  Builder b{op, shapes, {}, {}};
  b.nest.op = op.name;
  if (!main) return b.nest;
  for (const IndexVar &v : main->vars) b.addDim(v, false);
  visitExpr(main->value, [&](const Expr &x) {
    if (x->kind == ExprKind::Reduce)
      for (const IndexVar &v : x->rvars) b.addDim(v, true);
  });
  std::vector<Expr> outIdx;
  for (const IndexVar &v : main->vars) outIdx.push_back(var(v.name, VarKind::Index));
  b.nest.accesses.push_back(b.access(main->target, outIdx, true));
  visitExpr(main->value, [&](const Expr &x) {
    if (x->kind == ExprKind::Load) b.nest.accesses.push_back(b.access(x->tensor, x->args, false));
  });
  b.nest.flopsPerPoint = countFlops(main->value);
  for (const Access &a : b.nest.accesses) b.nest.elemBytes = std::max(b.nest.elemBytes, a.elemBytes);
  return b.nest;
}

} // namespace tk::construct
