// The files of a Sunway build, from the loop IR of its functions: the MPE
// source (the exported C functions; each parallel loop over the CPEs
// becomes a spawn of a CPE function and a join), the CPE source (those
// functions, reading their free variables from an argument struct), the
// header with the argument structs both sides include, and the Makefile
// (docs/sunway.md, "Generated code").
#pragma once
#include "backends/Backend.h"
#include "backends/sunway/SunwayBackend.h"

namespace tk {

// One output per entry of `kinds` (MpeSource, CpeSource, ParamsHeader,
// Makefile), named after options.moduleName's stem. The functions must be
// lowered for the Sunway family. nullopt after reporting errors (a type C
// cannot store, a function the CPEs cannot run).
std::optional<std::vector<backend::Output>> emitSunwaySources(const std::vector<ir::LoweredFunc> &funcs,
                                                              const SunwayTarget &target,
                                                              const backend::EmitOptions &options,
                                                              const std::vector<backend::OutputKind> &kinds,
                                                              DiagEngine &diags);

} // namespace tk
