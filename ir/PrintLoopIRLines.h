// The loop IR's text form with the source location of every line, so that
// `tkc explain` can link each lowered statement to the `.tk` line it came
// from. Kept apart from LoopIR.h, which nearly every file includes.
#pragma once
#include "ir/LoopIR.h"

#include <vector>

namespace tk::ir {

// printLoweredFunc(f), and in `*lineLocs` one entry per line of it (0-based):
// the location of the first located statement that line begins, invalid
// for lines that begin none (closing braces, the signature).
std::string printLoweredFuncLines(const LoweredFunc &f, std::vector<SourceLoc> *lineLocs);

} // namespace tk::ir
