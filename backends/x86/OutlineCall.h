// Outlining a piece of generated code into a function of its own, so that
// LLVM allocates its registers apart from the code around it.
#pragma once
#include "backends/x86/CodegenContext.h"

#include <functional>

namespace tk::x86 {

// Emits what `body` emits (at the insertion point it is given) into a new
// private, never-inlined function `<kernel>.<suffix><N>`, and a call of it
// at the insertion point. The function receives, by value, every variable
// and buffer that `root` and `alsoReads` read from the current frame,
// bound to the same names there; `body` must read nothing else (Captures). Non-temporal
// stores in it make the caller fence (CacheHints.h emitStreamFence) instead
// of the function, which returns right after them. Requires `body` to leave
// the insertion point in a block without terminator, and not to exit early
// (no Check, no heap buffer).
void emitOutlinedCall(CodegenContext &cg, const std::string &suffix, const ir::LStmt &root,
                      const std::function<void()> &body, const std::vector<ir::Expr> &alsoReads = {});

} // namespace tk::x86
