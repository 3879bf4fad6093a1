#include "frontend/driver/OutputFile.h"

#include "frontend/ResolveImports.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace tk::driver {

namespace {

// True when `path` is a regular file holding exactly `bytes`. The size is
// compared before anything is read, and the read itself is bounded, so a
// large or endless file is never read to its end.
bool sameContents(const struct stat &st, const std::string &path, const std::string &bytes) {
  if (uintmax_t(st.st_size) != bytes.size()) return false;
  std::string old;
  return readSourceFile(path, old) && old == bytes;
}

bool writeAll(int fd, const std::string &bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// A device, FIFO or socket is written in place, as cc does: renaming a
// temporary over it would replace /dev/null with a regular file when run
// as root. O_NONBLOCK keeps a FIFO without a reader from hanging the
// build (open fails with ENXIO instead); it is cleared before writing.
bool writeInPlace(const std::string &path, const std::string &bytes, std::string *error) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  bool ok = fd >= 0;
  if (ok) {
    int flags = ::fcntl(fd, F_GETFL);
    ok = flags >= 0 && ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 && writeAll(fd, bytes);
    ok = (::close(fd) == 0) && ok;
  }
  if (!ok) *error = "cannot write '" + path + "': " + std::strerror(errno);
  return ok;
}

// The temporary file being written, removed if SIGINT, SIGTERM or SIGHUP
// arrives before it is renamed (a build interrupted with Ctrl-C leaves no
// OUTPUT.tmp.XXXXXX behind, as with clang). A fixed buffer: the handler may
// only make async-signal-safe calls.
char pendingTemp[PATH_MAX];
volatile sig_atomic_t havePendingTemp = 0;

extern "C" void removePendingTemp(int sig) {
  if (havePendingTemp) ::unlink(pendingTemp);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void installCleanupHandlers() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old;
    // A signal the caller ignores (nohup) stays ignored.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    std::signal(sig, removePendingTemp);
  }
}

// Records `tmp` as the pending temporary (false when its path is too long
// to record: then it is simply not cleaned up on a signal).
void setPendingTemp(const std::string &tmp) {
  havePendingTemp = 0;
  if (tmp.size() >= sizeof pendingTemp) return;
  std::memcpy(pendingTemp, tmp.c_str(), tmp.size() + 1);
  havePendingTemp = 1;
}

} // namespace

bool writeOutputFile(const std::string &path, const std::string &bytes, std::string *error) {
  if (path == "-") {
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::cout.flush();
    if (!std::cout) *error = "cannot write to standard output";
    return static_cast<bool>(std::cout);
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      *error = "cannot write '" + path + "': it is a directory";
      return false;
    }
    if (!S_ISREG(st.st_mode)) return writeInPlace(path, bytes, error);
    if (sameContents(st, path, bytes)) return true;
  }
  installCleanupHandlers();
  std::string tmp = path + ".tmp.XXXXXX";
  // Blocked while the file is created and recorded, so a signal cannot
  // leave a temporary file that the handler does not know of.
  sigset_t block, old;
  sigemptyset(&block);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
  ::sigprocmask(SIG_BLOCK, &block, &old);
  int fd = mkstemp(tmp.data());
  int createErrno = errno;
  if (fd >= 0) setPendingTemp(tmp);
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
  if (fd < 0) {
    *error = "cannot write '" + path + "': cannot create a temporary file beside it: " + std::strerror(createErrno);
    return false;
  }
  // Test hook (tests/driver): the signal a build tool would send while the
  // output is being written, delivered at that point deterministically.
  if (const char *sig = std::getenv("TKC_TEST_SIGNAL_WHILE_WRITING"); sig && *sig) std::raise(std::atoi(sig));
  // mkstemp creates 0600; give the output the usual 0666 & ~umask.
  mode_t mask = umask(0);
  umask(mask);
  bool ok = fchmod(fd, 0666 & ~mask) == 0 && writeAll(fd, bytes);
  ok = (::close(fd) == 0) && ok;
  ok = ok && std::rename(tmp.c_str(), path.c_str()) == 0;
  int writeErrno = errno;
  if (!ok) std::remove(tmp.c_str());
  havePendingTemp = 0;
  if (!ok) *error = "cannot write '" + path + "': " + std::strerror(writeErrno);
  return ok;
}

} // namespace tk::driver
