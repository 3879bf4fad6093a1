// The hot loop of an export in assembly or PTX text, for `tkc explain`:
// among the loops (a label and a later branch back to it) of the functions
// the export compiles to, the innermost one with the most arithmetic.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace tk::explain {

struct HotLoop {
  std::string function; // the function holding it
  int firstLine = 0;    // 1-based line of its label in the whole text
  std::string text;     // its lines, label to back branch
  int arithmetic = 0;   // vector/FMA/MMA instructions counted in it
};

// N when `name` is `symbol_kN`, the N-th device kernel (CUDA) or CPE
// function (Sunway) the backends make of export `symbol`; else -1.
long deviceKernelIndex(std::string_view name, std::string_view symbol);

// Looks in function `symbol`, those named `symbol.*` (x86 task bodies
// outlined from it) or `symbol_kN` (its CUDA kernels), and the functions
// they call or jump to (code MergeFunctions shared with another export),
// in x86 assembly (`name:` ...
// `.Lfunc_end`) or PTX (`.entry name(` ... `}`). Nullopt when they have no
// loop.
std::optional<HotLoop> findHotLoop(const std::string &text, const std::string &symbol);

} // namespace tk::explain
