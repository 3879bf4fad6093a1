#include "bench/BenchCommand.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace tk::bench {

void execWithLibraryEnvironment(char **argv) {
  if (getenv("OMP_WAIT_POLICY") && getenv("OPENBLAS_CORETYPE")) return;
  if (!getenv("OMP_WAIT_POLICY")) setenv("OMP_WAIT_POLICY", "passive", 1);
  if (!getenv("OPENBLAS_CORETYPE")) setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
  execv("/proc/self/exe", argv);
}

namespace {

bool parseInto(int argc, char **argv, Options &o) {
  o.compile.tkc = TK_BENCH_TKC;
  o.compile.runtimeLibDir = TK_BENCH_LIBDIR;
  o.compile.workDir = "bench-work";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return false;
    std::string v = argv[++i];
    if (a == "--tkc") o.compile.tkc = v;
    else if (a == "--libdir") o.compile.runtimeLibDir = v;
    else if (a == "--source") o.source = v;
    else if (a == "--work") o.compile.workDir = v;
    else if (a == "--runs") o.runs = std::max(1, std::stoi(v));
    else if (a == "--max-seconds") o.maxSeconds = std::stod(v);
    else if (a == "--threads") o.threads = std::max(1, std::stoi(v));
    else if (a == "--filter") o.filter = v;
    else return false;
  }
  o.compile.tkcFlags = {"-O2", "--target=host", "--stdlib=" + o.source + "/stdlib"};
  return true;
}

} // namespace

bool parseOptions(int argc, char **argv, const char *program, Options &o) {
  if (parseInto(argc, argv, o)) return true;
  std::cerr << "usage: " << program
            << " [--tkc PATH] [--libdir DIR] [--source DIR] [--work DIR] [--runs N]"
               " [--max-seconds S] [--threads T] [--filter TEXT]\n";
  return false;
}

} // namespace tk::bench
