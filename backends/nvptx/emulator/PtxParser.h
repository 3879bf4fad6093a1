// PtxParser: PTX module text -> Module (PtxProgram.h), every operand
// resolved. Accepts what NVIDIA's PTX ISA defines for the instructions the
// executor implements; refuses everything else with the PTX line.
#pragma once

#include "PtxProgram.h"

#include <string>

namespace tk::cuemu {

// Parses `ptx`. Returns false with *error = "line N: message" on PTX the
// executor cannot run (syntax, unknown instruction or modifier, undeclared
// register or label, calls).
bool parseModule(const std::string &ptx, Module *out, std::string *error);

} // namespace tk::cuemu
