#include "frontend/driver/MeasureCandidates.h"

#include "frontend/driver/JitMeasure.h"
#include "ir/Module.h"
#include "scheduler/Pipeline.h"
#include "scheduler/construct/LoopNest.h"

#include <limits>
#include <sstream>

namespace tk::driver {

std::function<double(const ir::KernelPtr &)> measureCandidates(const CpuTarget &target,
                                                               std::map<std::string, int64_t> shapes) {
  return [target, shapes](const ir::KernelPtr &k) {
    ir::Module m;
    m.ops = {k->op};
    m.kernels = {k};
    m.exports = {{k->name, k->op, k, k->loc}};
    SourceManager sm;
    DiagEngine diags(sm);
    std::ostringstream messages;
    diags.setStream(&messages);
    PipelineOptions po;
    po.target = cpuTargetDesc(target);
    std::vector<ir::LoweredFunc> fs = lowerModule(m, po, diags);
    // Candidates are built by the compiler, so one that does not check is
    // a compiler bug, not a slow candidate.
    if (fs.size() != 1 || diags.hasErrors())
      throw InternalError("--rank=measure: candidate kernel for " + k->name + " does not lower: " + messages.str());
    looptune::JitKernel jit(fs[0], target, construct::assumedValues(*k->op, shapes));
    // A non-zero status: the assumed shapes violate the op's constraints.
    if (jit.call() != 0) return std::numeric_limits<double>::infinity();
    return jit.bestSeconds(0.02, 3, 0.1);
  };
}

} // namespace tk::driver
