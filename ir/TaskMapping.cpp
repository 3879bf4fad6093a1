#include "ir/TaskMapping.h"

#include "ir/Simplify.h"

#include <numeric>
#include <sstream>

namespace tk::ir {

std::vector<int> atomOrder(const MappingAtom &a) {
  if (!a.perm.empty()) return a.perm;
  std::vector<int> order(a.dims.size());
  std::iota(order.begin(), order.end(), 0);
  return order;
}

Expr atomWorkers(const MappingAtom &a) {
  Expr n = intImm(1);
  if (a.kind == MappingAtom::Kind::Spatial)
    for (const Expr &d : a.dims) n = mul(n, d);
  return n;
}

Expr TaskMapping::numWorkers() const {
  Expr n = intImm(1);
  for (const MappingAtom &a : atoms) n = mul(n, atomWorkers(a));
  return simplify(n);
}

std::vector<Expr> TaskMapping::taskShape() const {
  std::vector<Expr> shape(rank(), intImm(1));
  for (const MappingAtom &a : atoms)
    for (size_t d = 0; d < a.dims.size() && d < shape.size(); ++d) shape[d] = mul(shape[d], a.dims[d]);
  for (Expr &s : shape) s = simplify(s);
  return shape;
}

std::string printMapping(const TaskMapping &m) {
  std::ostringstream os;
  for (size_t i = 0; i < m.atoms.size(); ++i) {
    const MappingAtom &a = m.atoms[i];
    if (i) os << " * ";
    os << (a.kind == MappingAtom::Kind::Spatial ? "spatial(" : "repeat(");
    for (size_t d = 0; d < a.dims.size(); ++d) os << (d ? ", " : "") << printExpr(a.dims[d]);
    if (!a.perm.empty()) {
      os << ", ranks=[";
      for (size_t d = 0; d < a.perm.size(); ++d) os << (d ? ", " : "") << a.perm[d];
      os << "]";
    }
    os << ")";
  }
  return os.str();
}

MappingTasks mappingTasks(const TaskMapping &m, const Expr &workerId,
                          const std::function<std::string(size_t, size_t)> &loopName) {
  MappingTasks out;
  size_t rank = m.rank();
  out.coords.assign(rank, intImm(0));
  // Workers of the atoms after atom i (the w % n2 part of the composition).
  std::vector<Expr> after(m.atoms.size() + 1, intImm(1));
  for (size_t i = m.atoms.size(); i-- > 0;) after[i] = mul(after[i + 1], atomWorkers(m.atoms[i]));
  bool firstSpatial = true;
  for (size_t i = 0; i < m.atoms.size(); ++i) {
    const MappingAtom &a = m.atoms[i];
    std::vector<int> order = atomOrder(a);
    std::vector<Expr> t(rank, intImm(0));
    if (a.kind == MappingAtom::Kind::Spatial) {
      // The first spatial factor sees worker ids below its own count, so it
      // needs no modulo; later ones take their digit of the mixed radix.
      Expr wi = floorDiv(workerId, after[i + 1]);
      if (!firstSpatial) wi = floorMod(wi, atomWorkers(a));
      Expr stride = intImm(1);
      for (size_t p = order.size(); p-- > 0;) {
        int d = order[p];
        Expr digit = floorDiv(wi, stride);
        t[d] = p == 0 ? digit : floorMod(digit, a.dims[d]);
        stride = mul(stride, a.dims[d]);
      }
      firstSpatial = false;
    } else {
      for (int d : order) {
        std::string name = loopName(i, d);
        out.loops.push_back({name, a.dims[d]});
        t[d] = var(name, VarKind::Loop);
      }
    }
    for (size_t d = 0; d < rank; ++d) out.coords[d] = add(mul(out.coords[d], a.dims[d]), t[d]);
  }
  for (Expr &c : out.coords) c = simplify(c);
  return out;
}

} // namespace tk::ir
