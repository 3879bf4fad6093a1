#include "bench/TimeKernel.h"

#include "ir/Diagnostics.h"
#include "scheduler/Pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

namespace tk::bench {

namespace {

ir::Module moduleOf(const ir::OpPtr &op, const ir::KernelPtr &k) {
  ir::Module m;
  m.ops = {op};
  if (k) m.kernels = {k};
  m.exports = {{op->name, op, k, op->loc}};
  return m;
}

} // namespace

std::unique_ptr<looptune::JitKernel> jitKernel(const ir::KernelPtr &k, const CpuTarget &target,
                                               const std::map<std::string, int64_t> &values) {
  SourceManager sm;
  DiagEngine diags(sm);
  std::ostringstream messages;
  diags.setStream(&messages);
  PipelineOptions po;
  po.target.vectorBits = target.vectorBits;
  std::vector<ir::LoweredFunc> fs = lowerModule(moduleOf(k->op, k), po, diags);
  if (fs.size() != 1 || diags.hasErrors())
    throw InternalError("tk_construct_measure: kernel for " + k->name + " does not lower: " + messages.str());
  return std::make_unique<looptune::JitKernel>(fs[0], target, values);
}

ir::KernelPtr productionKernel(const ir::OpPtr &op, const construct::ConstructOptions &co, const TargetDesc &target) {
  SourceManager sm;
  DiagEngine diags(sm);
  std::ostringstream messages;
  diags.setStream(&messages);
  PipelineOptions po;
  po.target = target;
  po.construct = &co;
  std::vector<ir::KernelPtr> ks = scheduleModule(moduleOf(op, nullptr), po, diags);
  if (ks.size() != 1 || diags.hasErrors())
    throw InternalError("tk_construct_measure: no default kernel for " + op->name + ": " + messages.str());
  return ks[0];
}

double medianSeconds(const std::function<void()> &run) {
  using Clock = std::chrono::steady_clock;
  auto seconds = [&] {
    auto t0 = Clock::now();
    run();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  std::vector<double> t(seconds() > 0.3 ? 3 : 7);
  for (double &x : t) x = seconds();
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double relDiff(const std::vector<float> &got, const std::vector<float> &want) {
  double scale = 1, diff = 0;
  for (float w : want) scale = std::max(scale, double(std::fabs(w)));
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    if (double d = std::fabs(double(got[i]) - double(want[i])); !(d <= diff)) diff = d; // NaN propagates
  if (got.size() != want.size()) return INFINITY;
  return diff / scale;
}

} // namespace tk::bench
