// DriverState: what the driver API's entry points share (Driver.cpp,
// DriverMemory.cpp): device memory, loaded modules' functions, settings
// read at cuInit, the pending error and the last launch's counters.
#pragma once

#include "DeviceMemory.h"
#include "PtxProgram.h"
#include "tk_cuda_emu.h"
#include "tk_cuda_emu_device.h"

#include <cuda.h>

#include <map>
#include <mutex>
#include <string>

namespace tk::cuemu {

struct Function { // a CUfunction
  const Kernel *kernel = nullptr;
  int maxDynamicShared = spec::kSharedDefaultPerBlock;
};

struct ModuleObj { // a CUmodule
  Module module;
  std::map<std::string, Function> functions;
};

struct State {
  DeviceMemory memory;
  std::mutex lock; // guards what follows
  bool initialized = false, stats = false, checks = true;
  std::string statsFile; // TK_CUDA_EMU_STATS=FILE: launch records appended there instead of printed
  int threads = 1;
  uint64_t watchdog = uint64_t{1} << 34; // TK_CUDA_EMU_WATCHDOG
  int pending = 0; // error of a failed launch, reported by the next synchronize
  std::string lastError;
  tk_cuda_emu_stats lastStats{};
  bool haveStats = false;
};

// The driver's one state (one device, one context).
State &state();

// Records `message` as the last error, prints it to stderr, returns `code`.
CUresult fail(CUresult code, const std::string &message);

} // namespace tk::cuemu

#define TK_EMU_REQUIRE_INIT()                                                                                          \
  do {                                                                                                                 \
    if (!tk::cuemu::state().initialized) return CUDA_ERROR_NOT_INITIALIZED;                                            \
  } while (0)
