#include "frontend/driver/MeasureCandidates.h"

#include "ir/Module.h"
#include "scheduler/Pipeline.h"
#include "scheduler/construct/LoopNest.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

namespace tk::driver {

std::unique_ptr<looptune::JitKernel> compileCandidate(const ir::KernelPtr &k, const CpuTarget &target,
                                                      const std::map<std::string, int64_t> &shapes) {
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
    throw InternalError("candidate kernel for " + k->name + " does not lower: " + messages.str());
  return std::make_unique<looptune::JitKernel>(fs[0], target, construct::assumedValues(*k->op, shapes));
}

std::function<costmodel::Latency(const ir::KernelPtr &)> measureCandidates(const CpuTarget &target,
                                                                           std::map<std::string, int64_t> shapes) {
  return [target, shapes](const ir::KernelPtr &k) {
    auto jit = compileCandidate(k, target, shapes);
    // A call of a quarter second or more (assumed shapes far larger than
    // the kernel's use, or a slow candidate) is timed once: five samples
    // and a warm-up would hold the compile for seconds per candidate, and
    // at that length one call's noise is small.
    using Clock = std::chrono::steady_clock;
    Clock::time_point t0 = Clock::now();
    if (jit->call() != 0) return costmodel::Latency{std::numeric_limits<double>::infinity(), 0, 0};
    double first = std::chrono::duration<double>(Clock::now() - t0).count();
    if (first >= kSlowCallSec) return costmodel::Latency{first, 1, 0};
    return measureInterleaved({jit.get()}, 5, 0.004).front();
  };
}

std::vector<costmodel::Latency> measureInterleaved(const std::vector<looptune::JitKernel *> &kernels, int rounds,
                                                   double sampleSec) {
  using Clock = std::chrono::steady_clock;
  size_t n = kernels.size();
  std::vector<int> reps(n, 0);
  std::vector<std::vector<double>> samples(n);
  for (size_t i = 0; i < n; ++i) {
    if (kernels[i]->call() != 0) continue; // warm-up; a failing kernel is not timed
    auto t0 = Clock::now();
    kernels[i]->call();
    double once = std::max(1e-7, std::chrono::duration<double>(Clock::now() - t0).count());
    reps[i] = static_cast<int>(std::clamp(std::ceil(sampleSec / once), 1.0, 1e6));
  }
  for (int r = 0; r < rounds; ++r)
    for (size_t o = 0; o < n; ++o) {
      size_t i = (o + static_cast<size_t>(r)) % n;
      if (reps[i] == 0) continue;
      auto t0 = Clock::now();
      for (int k = 0; k < reps[i]; ++k) kernels[i]->call();
      samples[i].push_back(std::chrono::duration<double>(Clock::now() - t0).count() / reps[i]);
    }
  std::vector<costmodel::Latency> out(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> &s = samples[i];
    if (s.empty()) {
      out[i] = {std::numeric_limits<double>::infinity(), 0, 0};
      continue;
    }
    std::sort(s.begin(), s.end());
    double median = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
    out[i] = {median, static_cast<int>(s.size()) * reps[i], (s.back() - s.front()) / median};
  }
  return out;
}

} // namespace tk::driver
