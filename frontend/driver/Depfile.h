// Make/Ninja dependency files (`-MD -MF file.d -MT target`).
#pragma once
#include <string>
#include <vector>

namespace tk::driver {

// Escapes one path for a depfile: ' ' -> "\ ", '#' -> "\#", '$' -> "$$";
// backslashes before those characters are doubled. Colons are kept as is
// (Ninja treats a ':' that is not followed by whitespace as part of the
// path; like gcc and clang, tkc cannot express such paths for make).
std::string escapeDepfilePath(const std::string &path);

// "target1 target2: \\\n  dep1 \\\n  dep2 ...\n": the targets (every output
// of one compile, or the -MT name) in order, then each dependency once, in
// order.
std::string makeDepfile(const std::vector<std::string> &targets, const std::vector<std::string> &deps);

} // namespace tk::driver
