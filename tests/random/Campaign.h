// The differential campaign: generates programs from consecutive seeds,
// compiles each with tkc and checks it with tk_difftest (tests/e2e) at -O0
// and -O3 on every CPU target, and classifies the outcome:
//
//   pass            valid program, every configuration matches the reference
//   mismatch        tk_difftest found wrong values, a wrong status, a crash
//                   or a hang of the compiled code
//   crash           tkc exited with a signal, a timeout or status >= 2
//   refused-valid   tkc rejected (status 1) a program the language allows
//   silent-invalid  a kernel with a wrong task mapping compiled without an
//                   error or a warning and --check-mappings did not catch it
//
// and, for the programs where refusing is right: refused, warned, caught
// (bad mappings) and refused-name (ops named like a libm/C symbol).
#pragma once
#include "tests/random/Program.h"

#include <optional>
#include <string>
#include <vector>

namespace tk::randprog {

struct CampaignOptions {
  uint64_t seed = 1;
  uint64_t count = 0;    // programs to run (0: until `seconds`)
  double seconds = 0;    // stop starting programs after this long (0: until `count`)
  std::string tkc, difftest, libdir;
  std::string work = "randprog-work"; // scratch files
  std::string out;       // failing programs are saved here (empty: not saved)
  std::vector<std::string> targets = {"host", "x86_64", "x86_64-avx2", "x86_64-avx512"};
  std::vector<std::string> optLevels = {"-O0", "-O3"};
  bool rotate = false;   // two configurations per program (an -O0 and an -O3 one, targets rotating)
  int trials = 4;        // tk_difftest --trials
  bool verbose = false;  // one line per program
  std::optional<ProgramKind> kind;
};

// Runs the campaign, prints one line per failure (per program with
// --verbose) and the counts at the end. Returns 0 when no program failed.
int runCampaign(const CampaignOptions &o);

} // namespace tk::randprog
