// TimeKernel: what tk_construct_measure needs to run one mapping-IR kernel
// in process — lower it with the scheduler's pipeline, JIT-compile it
// (frontend/driver/JitMeasure.h) with random f32 inputs at given shapes —
// and the median-of-a-few-runs timer it reports.
#pragma once
#include "frontend/driver/JitMeasure.h"
#include "ir/MappingIR.h"
#include "scheduler/TargetDesc.h"
#include "scheduler/construct/FillHoles.h"

#include <functional>
#include <map>
#include <memory>
#include <string>

namespace tk::bench {

// Lowers `k` (a checked or synthesized kernel of a CPU op) and links it;
// `values` gives every shape symbol and integer scalar. Inputs are the same
// for every kernel of the same op (JitKernel seeds its generator), so
// outputs of different kernels compare element by element. Throws
// InternalError when the kernel does not lower.
std::unique_ptr<looptune::JitKernel> jitKernel(const ir::KernelPtr &k, const CpuTarget &target,
                                               const std::map<std::string, int64_t> &values);

// The kernel tkc builds for `op` when it has none (ConstructSchedule for
// contractions, ConstructConvolution for windowed ones, DefaultSchedule
// otherwise), constructed with `co` (hardware, shape hints).
ir::KernelPtr productionKernel(const ir::OpPtr &op, const construct::ConstructOptions &co, const TargetDesc &target);

// Median seconds of `run` after one warm-up call: 7 timed calls, or 3 when
// the warm-up took longer than 0.3 s (so a slow candidate costs seconds,
// not minutes).
double medianSeconds(const std::function<void()> &run);

// Largest |got - want| over the elements, relative to max(1, max |want|).
double relDiff(const std::vector<float> &got, const std::vector<float> &want);

} // namespace tk::bench
