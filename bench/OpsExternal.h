// OpsExternal: tk_ops_bench's baselines outside this process's libraries —
// plain C loops compiled at run time by gcc, and PyTorch eager run by
// bench/ops_torch.py in a child process.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace tk::bench {

// Compiles the C file `source` with `gcc -O3 -fopenmp -march=native -shared
// -fPIC` into `workDir` and loads it (kept loaded for the process's life).
// Returns the dlopen handle, or null with *error set (with gcc's output).
void *compileCLoops(const std::string &source, const std::string &workDir, std::string *error);

// One PyTorch case: the row name, the op's name in ops_torch.py and its
// extents.
struct TorchCase {
  std::string name, op;
  std::vector<long> extents;
};

// True when `python3 -c 'import torch'` succeeds ($TK_PYTHON instead of
// python3 when set, here and below).
bool haveTorch();

// Runs `python3 script SPEC --threads T --runs N --max-seconds S` on the
// cases (written to workDir/ops_torch.tsv) and returns seconds per call by
// row name; cases PyTorch could not run are absent. On failure returns an
// empty map with *error set.
std::map<std::string, double> torchSeconds(const std::string &script, const std::vector<TorchCase> &cases,
                                           const std::string &workDir, int threads, int runs, double maxSeconds,
                                           std::string *error);

} // namespace tk::bench
