// tk_randprog: random valid .tk programs and the differential campaign
// over them (tests/random/README.md).
//
//   tk_randprog [--seed N] [--kind K]           print the program of seed N
//   tk_randprog --campaign [--seed N] [--count N] [--seconds S] [--out DIR]
//               [--work DIR] [--rotate] [--trials N] [--targets T,T..]
//               [--opt -O0,-O3] [--kind K] [--verbose]
//               [--tkc PATH] [--difftest PATH] [--libdir DIR]
//
// K is op, kernel, bad-mapping or name-clash. Exit status: 0 = printed, or
// every program of the campaign behaved; 1 = some program failed (see the
// summary); 2 = usage error.
#include "tests/random/Campaign.h"

#include <iostream>
#include <sstream>

using namespace tk::randprog;

namespace {

std::vector<std::string> splitCommas(const std::string &s) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');)
    if (!x.empty()) r.push_back(x);
  return r;
}

int usage() {
  std::cerr << "usage: tk_randprog [--seed N] [--kind op|kernel|bad-mapping|name-clash]\n"
               "       tk_randprog --campaign [--seed N] [--count N] [--seconds S] [--out DIR] [--work DIR]\n"
               "                   [--rotate] [--trials N] [--targets T,..] [--opt -O0,-O3] [--kind K] [--verbose]\n"
               "                   [--tkc PATH] [--difftest PATH] [--libdir DIR]\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  CampaignOptions o;
  o.tkc = TK_RANDPROG_TKC;
  o.difftest = TK_RANDPROG_DIFFTEST;
  o.libdir = TK_RANDPROG_LIBDIR;
  bool campaign = false;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
        return argv[++i];
      };
      if (a == "--campaign") campaign = true;
      else if (a == "--seed") o.seed = std::stoull(value());
      else if (a == "--count") o.count = std::stoull(value());
      else if (a == "--seconds") o.seconds = std::stod(value());
      else if (a == "--out") o.out = value();
      else if (a == "--work") o.work = value();
      else if (a == "--rotate") o.rotate = true;
      else if (a == "--trials") o.trials = std::stoi(value());
      else if (a == "--targets") o.targets = splitCommas(value());
      else if (a == "--opt") o.optLevels = splitCommas(value());
      else if (a == "--verbose") o.verbose = true;
      else if (a == "--tkc") o.tkc = value();
      else if (a == "--difftest") o.difftest = value();
      else if (a == "--libdir") o.libdir = value();
      else if (a == "--kind") {
        std::string k = value();
        bool found = false;
        for (ProgramKind pk : {ProgramKind::Op, ProgramKind::Kernel, ProgramKind::BadMapping, ProgramKind::NameClash})
          if (k == kindName(pk)) {
            o.kind = pk;
            found = true;
          }
        if (!found) return usage();
      } else return usage();
    }
  } catch (const std::exception &e) {
    std::cerr << "tk_randprog: " << e.what() << "\n";
    return usage();
  }
  if (o.targets.empty() || o.optLevels.empty()) return usage();
  if (campaign) {
    if (o.count == 0 && o.seconds <= 0) o.count = 100;
    return runCampaign(o);
  }
  Program p = generateProgram(o.seed, o.kind ? &*o.kind : nullptr);
  std::cout << p.text;
  std::cerr << "symbol " << p.symbol << ", " << kindName(p.kind) << (p.note.empty() ? "" : ": " + p.note) << "\n";
  return 0;
}
