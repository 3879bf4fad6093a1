// Runs a command with a time limit and captures its output: the campaign
// runs tkc and tk_difftest as child processes, so that a compiler crash or
// a kernel that crashes or hangs the test harness is one classified result,
// not the end of the campaign.
#pragma once
#include <string>
#include <vector>

namespace tk::randprog {

struct RunResult {
  int exitCode = -1;   // valid when signal == 0 and !timedOut
  int signal = 0;      // the signal that ended the process, 0 if none
  bool timedOut = false;
  std::string output;  // stdout and stderr together, at most 64 KiB (the rest is dropped)
  bool execFailed = false; // the program could not be started (missing, being relinked, ...)
};

// argv[0] is the program path. The child gets its own process group, so a
// timeout kills everything it started.
RunResult runCommand(const std::vector<std::string> &argv, double timeoutSeconds);

} // namespace tk::randprog
