// PtxOpcode: an instruction's opcode text ("setp.lt.s64", "ld.global.nc.v4.f32")
// -> Instr's op and modifiers. Only the combinations the executor implements
// are accepted: anything else is refused with the reason, so an
// unimplemented variant is a load error, never a silently wrong result.
#pragma once

#include "PtxProgram.h"

#include <string>

namespace tk::cuemu {

// Fills in->op, types and modifiers (not operands). Returns false and sets
// *why when the opcode or one of its modifiers is not implemented.
bool decodeOpcode(const std::string &opcode, Instr *in, std::string *why);

// "%tid.x" -> Special::TidX; false when it is no special register.
bool parseSpecial(const std::string &name, Special *out);

// ".f32" -> Type::F32 (with the dot); Type::None when it is not a type.
Type parseType(const std::string &mod);

} // namespace tk::cuemu
