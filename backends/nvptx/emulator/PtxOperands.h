// PtxOperands: whether an instruction's operands are what its opcode needs
// (count, destinations that are registers, address operands where memory
// is accessed, vector sizes). Checked once at load time so that execution
// can index operands without looking, and malformed PTX is an error
// naming its line instead of a crash.
#pragma once

#include "PtxProgram.h"

#include <string>

namespace tk::cuemu {

// False with *why when `in`'s operands do not fit its opcode. Branch
// targets are checked separately (labels resolve after the body is read).
bool checkOperands(const Instr &in, std::string *why);

} // namespace tk::cuemu
