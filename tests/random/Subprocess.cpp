#include "tests/random/Subprocess.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tk::randprog {

namespace {
constexpr const char *kExecFailed = "tk_randprog: cannot execute ";
}

RunResult runCommand(const std::vector<std::string> &argv, double timeoutSeconds) {
  RunResult r;
  int fds[2];
  if (pipe(fds) != 0) {
    r.output = std::string("pipe: ") + strerror(errno);
    return r;
  }
  pid_t pid = fork();
  if (pid < 0) {
    r.output = std::string("fork: ") + strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    std::vector<char *> args;
    for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    std::string msg = std::string(kExecFailed) + args[0] + ": " + strerror(errno) + "\n";
    ssize_t ignored = write(1, msg.data(), msg.size());
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);
  close(fds[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timedOut = true;
      kill(-pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    ssize_t got = read(fds[0], buf, sizeof buf);
    if (got <= 0) break; // EOF: the child (and everything holding the pipe) is done writing
    if (r.output.size() < 65536) r.output.append(buf, static_cast<size_t>(got));
  }
  close(fds[0]);
  int status = 0;
  if (r.timedOut) {
    waitpid(pid, &status, 0);
    return r;
  }
  // EOF came; the child may still be exiting, or a grandchild kept the
  // pipe open past the child's exit: wait with the same deadline.
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      r.timedOut = true;
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      return r;
    }
    usleep(1000);
  }
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  else r.exitCode = WEXITSTATUS(status);
  r.execFailed = r.exitCode == 127 && r.output.rfind(kExecFailed, 0) == 0;
  return r;
}

} // namespace tk::randprog
