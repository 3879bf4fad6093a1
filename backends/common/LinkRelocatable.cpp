#include "backends/common/LinkRelocatable.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace tk::codegen {

namespace fs = std::filesystem;

namespace {

// TK_LD if set, else the first executable `ld` on PATH; empty if none.
std::string findLinker() {
  if (const char *ld = std::getenv("TK_LD"); ld && *ld) return access(ld, X_OK) == 0 ? ld : "";
  const char *path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/ld";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

const std::string &linker() {
  static const std::string ld = findLinker();
  return ld;
}

// A private directory under TMPDIR, removed with everything in it at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = (fs::path(tmp && *tmp ? tmp : "/tmp") / "tkc-link-XXXXXX").string();
    if (mkdtemp(pattern.data())) path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

bool writeFile(const fs::path &p, const std::string &bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(f);
}

} // namespace

bool relocatableLinkerAvailable() { return !linker().empty(); }

std::optional<std::string> linkRelocatable(const std::vector<std::string> &objects, std::string *why) {
  if (linker().empty()) {
    *why = "no linker: neither TK_LD nor `ld` on PATH";
    return std::nullopt;
  }
  TempDir dir;
  if (dir.path.empty()) {
    *why = fmt::format("cannot create a temporary directory: {}", std::strerror(errno));
    return std::nullopt;
  }
  std::vector<std::string> args = {linker(), "-r", "-o", (dir.path / "joined.o").string()};
  for (size_t i = 0; i < objects.size(); ++i) {
    fs::path p = dir.path / fmt::format("part{}.o", i);
    if (!writeFile(p, objects[i])) {
      *why = fmt::format("cannot write {}", p.string());
      return std::nullopt;
    }
    args.push_back(p.string());
  }
  std::vector<char *> argv;
  for (std::string &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (int err = posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ); err != 0) {
    *why = fmt::format("cannot run {}: {}", args[0], std::strerror(err));
    return std::nullopt;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *why = fmt::format("{} -r failed (status {})", args[0], status);
    return std::nullopt;
  }
  std::ifstream in(dir.path / "joined.o", std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) {
    *why = "cannot read the joined object";
    return std::nullopt;
  }
  return bytes.str();
}

} // namespace tk::codegen
