#include "scheduler/looptune/TuneDecisions.h"

#include "ir/Type.h"

namespace tk::looptune {

costmodel::DecisionSequence tuneDecisions(const TuneNest &n, int units) {
  using costmodel::PrimitiveKind;
  const ir::Assign &a = n.op->body[0];
  costmodel::DecisionSequence seq{{PrimitiveKind::Op, {double(ir::scalarTypeBytes(a.target->dtype))}, {n.op->name}}};
  for (size_t v = 0; v < n.vars.size(); ++v)
    seq.push_back({PrimitiveKind::Loop, {double(n.vars[v].extent), n.vars[v].reduction ? 1.0 : 0.0, double(v)},
                   {n.vars[v].name}});
  seq.push_back({PrimitiveKind::Threads, {double(units)}, {}});
  for (int l = 0; l < static_cast<int>(n.loops.size()); ++l) {
    const NestLoop &loop = n.loops[l];
    seq.push_back({PrimitiveKind::NestLoop,
                   {double(loop.var), double(loop.step), double(loopSize(n, l)), double(loopTail(n, l))},
                   {n.vars[loop.var].name}});
  }
  return seq;
}

} // namespace tk::looptune
