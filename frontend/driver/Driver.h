// The tkc driver: command line -> frontend -> scheduler -> backend -> files.
// main.cpp only forwards argv here, so tests can run the whole compiler in
// process.
#pragma once
#include <string>
#include <vector>

namespace tk::driver {

enum ExitCode { kExitOk = 0, kExitCompileError = 1, kExitUsage = 2, kExitInternal = 4 };

// Runs one tkc invocation. `args` excludes argv[0]; `exePath` locates the
// installed stdlib (<exe>/../share/tk/stdlib). Writes outputs, diagnostics
// to stderr, and returns the process exit status (docs/driver.md).
int runTkc(const std::vector<std::string> &args, const std::string &exePath);

} // namespace tk::driver
