// MeasureCandidates: compiling candidate kernels in process and timing them
// — `--rank=measure`'s timing function (scheduler/construct/FillHoles.h,
// ConstructOptions::measure), and the interleaved timing behind
// `--records-out`, `--rank=model --measure-top` and bench/tk_dataset. Each
// candidate is lowered, compiled for the CPU target and linked in process
// (JitMeasure.h), then timed at the shapes the construction assumed.
#pragma once
#include "backends/x86/X86Backend.h"
#include "frontend/driver/JitMeasure.h"
#include "ir/MappingIR.h"
#include "scheduler/costmodel/Records.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tk::driver {

// A candidate kernel lowered and linked, with random inputs at `shapes`
// (construct::assumedValues fills what is missing). A candidate that does
// not lower is an internal error: the compiler built it.
std::unique_ptr<looptune::JitKernel> compileCandidate(const ir::KernelPtr &k, const CpuTarget &target,
                                                      const std::map<std::string, int64_t> &shapes);

// A call at least this long is timed once (measureCandidates).
inline constexpr double kSlowCallSec = 0.25;

// The latency of one call of a kernel, compiled by compileCandidate and
// timed by measureInterleaved on its own (5 samples of at least 4 ms after
// a warm-up; the median counts; a first call of kSlowCallSec or more is
// the latency itself, runs = 1) with random f32/f64 inputs; shape symbols
// and integer scalars take `shapes` or construction's defaults
// (assumedValues). A call returning a non-zero status (the assumed shapes
// break the op's `where` constraints) counts as infinitely slow.
std::function<costmodel::Latency(const ir::KernelPtr &)> measureCandidates(const CpuTarget &target,
                                                                           std::map<std::string, int64_t> shapes);

// Times kernels against each other so that drift of the machine (clock,
// other load) falls on all of them alike: each gets a warm-up call and a
// repetition count making one sample last at least `sampleSec`; then
// `rounds` rounds time one sample of every kernel, in an order rotated by
// one each round. Returns per kernel the median of its samples (seconds per
// call), the sample count and (slowest - fastest) / median. Kernels whose
// call fails get median infinity.
std::vector<costmodel::Latency> measureInterleaved(const std::vector<looptune::JitKernel *> &kernels, int rounds,
                                                   double sampleSec);

} // namespace tk::driver
