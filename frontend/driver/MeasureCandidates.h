// MeasureCandidates: `--rank=measure` — the timing function the
// construction optimizer calls for each of its top candidate kernels
// (scheduler/construct/FillHoles.h, ConstructOptions::measure). Each
// candidate is lowered, compiled for the CPU target and linked in process
// (JitMeasure.h), then timed at the shapes the construction assumed.
#pragma once
#include "backends/x86/X86Backend.h"
#include "ir/MappingIR.h"

#include <functional>
#include <map>
#include <string>

namespace tk::driver {

// Seconds of one call of a kernel (best of at least 3 after a warm-up,
// within about 0.1 s) with random f32/f64 inputs; shape symbols and integer
// scalars take `shapes` or construction's defaults (assumedValues). A
// call returning a non-zero status (the assumed shapes break the op's
// `where` constraints) counts as infinitely slow; a candidate that does not
// lower is an internal error.
std::function<double(const ir::KernelPtr &)> measureCandidates(const CpuTarget &target,
                                                               std::map<std::string, int64_t> shapes);

} // namespace tk::driver
