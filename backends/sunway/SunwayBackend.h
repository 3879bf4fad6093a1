// Sunway backend: loop IR of `on sunway` functions -> plain C99 sources for
// the athread API: the MPE file (spawns and joins the CPE kernels, owns the
// exported C functions), the CPE file (one slave function per parallel
// loop over the 64 CPEs, DMA between main memory and LDM), the parameter
// structs both include, and a Makefile for sw5cc / swgcc or, with
// TK_EMULATE=1, the host cc and tkc's athread emulator (docs/sunway.md).
#pragma once
#include "backends/Backend.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tk {

// A named Sunway target: `sunway` (SW26010: sw5cc, 64 KiB LDM per CPE) and
// `sunway-pro` (SW26010-Pro: swgcc, 256 KiB LDM).
struct SunwayTarget {
  std::string name;
  bool pro = false;
  int64_t ldmBytes = 64 * 1024;
  int vectorBits = 256;
};
// nullopt (and *error set) for an unknown name.
std::optional<SunwayTarget> resolveSunwayTarget(const std::string &name, std::string *error);

// The registry's Sunway backend (family sunway).
std::unique_ptr<const backend::Backend> createSunwayBackend();

} // namespace tk
