// Hidet's task-mapping rule as index expressions: which task coordinates a
// worker runs. Shared by the lowering (which emits the expressions) and the
// checks and tests (which enumerate them).
#pragma once
#include "ir/MappingIR.h"

#include <functional>

namespace tk::ir {

// The tasks of mapping `m` for worker `workerId`: a nest of repeat loops
// (outermost first) and one coordinate expression per task dimension over
// the worker id and those loop variables.
//   spatial:      t_k = (w / stride_k) % d_k, row-major strides in `perm` order
//   repeat:       t_k = loop variable over [0, d_k), loops nested in `perm` order
//   f1 * f2:      w1 = w / n2, w2 = w % n2, t = t1 * d2 + t2 (element-wise)
// `loopName(atom, dim)` names the loop variable of a repeat factor.
struct MappingTasks {
  struct Loop {
    std::string var;
    Expr extent;
  };
  std::vector<Loop> loops;
  std::vector<Expr> coords;
};
MappingTasks mappingTasks(const TaskMapping &m, const Expr &workerId,
                          const std::function<std::string(size_t atom, size_t dim)> &loopName);

// The dimension order of an atom, slowest first (its perm or row-major).
std::vector<int> atomOrder(const MappingAtom &a);

// Number of workers of one atom: product of dims for spatial, 1 for repeat.
Expr atomWorkers(const MappingAtom &a);

} // namespace tk::ir
