// LinkRelocatable: several ELF object files made into one, as `ld -r`
// does. The CPU backend compiles each export of a file in its own LLVM
// module, on its own thread (docs/driver.md, "Parallel code generation"),
// and the build still gets the one object it asked for.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace tk::codegen {

// Whether a system linker (`ld` on PATH, or the file TK_LD names) is there
// to join objects. Checked once per process.
bool relocatableLinkerAvailable();

// The objects (bytes, in order) joined into one relocatable object by the
// system linker: their sections concatenated in that order, symbols and
// relocations kept. Returns nullopt with *why set when the linker is
// missing or fails; the caller then compiles without splitting.
std::optional<std::string> linkRelocatable(const std::vector<std::string> &objects, std::string *why);

} // namespace tk::codegen
