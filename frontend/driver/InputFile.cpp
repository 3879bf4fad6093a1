#include "frontend/driver/InputFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tk::driver {

namespace {

constexpr size_t kMaxStreamBytes = 64u << 20; // as for source files (ResolveImports)

bool startsWith(const std::string &s, const char *p) { return s.rfind(p, 0) == 0; }

// Reads fd to its end (blocking: a pipe's writer may be slow), bounded.
bool readAll(int fd, std::string &out, std::string *error, const std::string &name) {
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = "cannot read " + name + ": " + std::strerror(errno);
      return false;
    }
    if (n == 0) return true;
    if (out.size() + size_t(n) > kMaxStreamBytes) {
      *error = "cannot read " + name + ": larger than 64 MiB";
      return false;
    }
    out.append(buf, size_t(n));
  }
}

} // namespace

std::optional<Input> openInput(const std::string &path, std::string *error) {
  bool stdinName = path == "-" || path == "/dev/stdin" || path == "/dev/fd/0";
  struct stat st;
  bool stream = stdinName || startsWith(path, "/dev/fd/") ||
                (::stat(path.c_str(), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode)));
  if (!stream) return Input{path, std::nullopt};
  Input in{stdinName ? "<stdin>" : path, std::string()};
  int fd = stdinName ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot read '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  bool ok = readAll(fd, *in.text, error, stdinName ? "standard input" : "'" + path + "'");
  if (!stdinName) ::close(fd);
  if (!ok) return std::nullopt;
  return in;
}

} // namespace tk::driver
