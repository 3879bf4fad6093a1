#include "bench/OpsExternal.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sys/wait.h>

namespace tk::bench {

namespace {

// Runs `cmd` through the shell; its stdout (and stderr when `mergeStderr`)
// goes to *out. Returns the exit status (-1 when it could not start).
int run(const std::string &cmd, std::string *out, bool mergeStderr) {
  FILE *p = popen((cmd + (mergeStderr ? " 2>&1" : "")).c_str(), "r");
  if (!p)
    return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    out->append(buf, n);
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string quote(const std::string &s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

} // namespace

void *compileCLoops(const std::string &source, const std::string &workDir, std::string *error) {
  std::filesystem::create_directories(workDir);
  std::string lib = (std::filesystem::path(workDir) / "libcloops.so").string();
  std::string cmd = fmt::format("gcc -O3 -fopenmp -march=native -shared -fPIC {} -o {}", quote(source), quote(lib));
  std::string out;
  if (run(cmd, &out, true) != 0) {
    *error = fmt::format("compiling failed: {}\n{}", cmd, out);
    return nullptr;
  }
  void *h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h)
    *error = fmt::format("dlopen failed: {}", dlerror());
  return h;
}

// The Python that runs ops_torch.py: $TK_PYTHON, else python3 on PATH (a
// pyenv or virtualenv python3 may not see Debian's python3-torch, which
// lives in /usr/bin/python3's site-packages).
std::string python() {
  const char *p = std::getenv("TK_PYTHON");
  return p && *p ? quote(p) : std::string("python3");
}

bool haveTorch() {
  std::string out;
  return run(python() + " -c 'import torch' >/dev/null", &out, true) == 0;
}

std::map<std::string, double> torchSeconds(const std::string &script, const std::vector<TorchCase> &cases,
                                           const std::string &workDir, int threads, int runs, double maxSeconds,
                                           std::string *error) {
  std::filesystem::create_directories(workDir);
  std::string spec = (std::filesystem::path(workDir) / "ops_torch.tsv").string();
  {
    std::ofstream f(spec);
    for (const TorchCase &c : cases)
      f << c.name << '\t' << c.op << '\t' << fmt::format("{}", fmt::join(c.extents, " ")) << '\n';
  }
  std::string cmd = fmt::format("{} {} {} --threads {} --runs {} --max-seconds {}", python(), quote(script), quote(spec),
                                threads, runs, maxSeconds);
  std::string out;
  std::map<std::string, double> times;
  if (run(cmd, &out, false) != 0) {
    *error = fmt::format("{} failed", cmd);
    return times;
  }
  // The script prints one flat JSON object of names (no quotes or
  // backslashes in them) to numbers.
  static const std::regex entry(R"re("([^"]*)": ([-+0-9.eE]+))re");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), entry); it != std::sregex_iterator(); ++it)
    times[(*it)[1]] = std::stod((*it)[2]);
  return times;
}

} // namespace tk::bench
