// The options of the compiler's stages as the command line sets them: one
// place for every driver path (a compile, `-M`, `tkc explain`), so they see
// the same program and schedule it the same way.
#pragma once
#include "frontend/Frontend.h"
#include "frontend/driver/CommandLine.h"
#include "scheduler/Pipeline.h"

#include <string>

namespace tk::driver {

// -I, the stdlib directory and the target family the frontend exports for.
FrontendOptions frontendOptions(const DriverOptions &o, const std::string &stdlib, ir::TargetFamily family);

// --schedule, --sunway-dma and --check-mappings for `target`; the caller
// sets `construct` and `dumpAfterEachPass` (they need its own streams).
PipelineOptions pipelineOptions(const DriverOptions &o, const TargetDesc &target);

} // namespace tk::driver
