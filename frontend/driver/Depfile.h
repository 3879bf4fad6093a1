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

// "target1 target2: \\\n  dep1 \\\n  dep2 ...\n": the targets in order (as
// given: callers escape paths, -MT names are written as they are), then
// each dependency once, in order, escaped; then an empty rule "dep:" for
// each of `phony` (-MP: every dependency but the input, so that make does
// not stop when an imported file is deleted).
std::string makeDepfile(const std::vector<std::string> &targets, const std::vector<std::string> &deps,
                        const std::vector<std::string> &phony = {});

} // namespace tk::driver
