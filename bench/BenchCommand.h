// BenchCommand: the command line and process set-up shared by tk_bench and
// tk_ops_bench — the same options, parsed the same way, and the same
// environment the libraries are measured in.
#pragma once
#include "tests/e2e/NativeOp.h"

#include <string>

namespace tk::bench {

struct Options {
  e2e::CompileConfig compile;
  std::string source = TK_BENCH_SOURCE_DIR;
  int runs = 5;
  double maxSeconds = 2;
  int threads = 2;
  std::string filter;
};

// Re-executes this program with OMP_WAIT_POLICY=passive and
// OPENBLAS_CORETYPE=SkylakeX unless both are set (returns when they are).
// Both are read when the libraries load, before main. oneDNN's OpenMP
// threads spin at barriers by default: on a machine whose cores are shared
// a descheduled spinner stalls the others (10-30x slower at 256^3).
// OpenBLAS picks its kernels when loaded and does not always recognise
// newer AVX-512 CPUs (docs/benchmarks.md).
void execWithLibraryEnvironment(char **argv);

// [--tkc PATH] [--libdir DIR] [--source DIR] [--work DIR] [--runs N]
// [--max-seconds S] [--threads T] [--filter TEXT] into `o` (tkc, its
// runtime and the work directory defaulting to this build's). False, after
// printing the usage line for `program`, on anything else.
bool parseOptions(int argc, char **argv, const char *program, Options &o);

} // namespace tk::bench
