#include "frontend/ResolveImports.h"

#include "frontend/Parse.h"

#include <cerrno>
#include <filesystem>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tk {

namespace fs = std::filesystem;

namespace {

// Larger files are refused rather than read (an import of a device or a
// huge data file must not hang or exhaust memory).
constexpr uintmax_t kMaxSourceBytes = 64u << 20;

std::string canonicalKey(const std::string &path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::path(path), ec);
  return ec ? fs::path(path).lexically_normal().string() : p.string();
}

bool isRegularFile(const fs::path &p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

} // namespace

bool readSourceFile(const std::string &path, std::string &contents) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer, and pseudo-files
  // that report a regular type but block on read (/proc/kmsg) fail with
  // EAGAIN instead of hanging. The type and size come from the opened file
  // (no race with a path check); the read is bounded as well, because /proc
  // and /sys files report size 0 whatever they hold.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && uintmax_t(st.st_size) <= kMaxSourceBytes;
  std::string text;
  char buf[64 * 1024];
  while (ok) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    if (text.size() + size_t(n) > kMaxSourceBytes) ok = false;
    else text.append(buf, size_t(n));
  }
  ::close(fd);
  if (ok) contents = std::move(text);
  return ok;
}

std::vector<std::unique_ptr<ast::File>> loadProgram(int mainFile, const FrontendOptions &opts, SourceManager &sm,
                                                    DiagEngine &diags, std::vector<std::string> *dependencies) {
  std::vector<std::unique_ptr<ast::File>> files;
  std::set<std::string> seen{canonicalKey(sm.path(mainFile))};
  bool failed = false;
  // Depth-first in source order, with an explicit stack: a long import
  // chain must not exhaust the call stack.
  struct Pending {
    int file;
  };
  std::vector<Pending> stack{{mainFile}};
  while (!stack.empty()) {
    int id = stack.back().file;
    stack.pop_back();
    std::unique_ptr<ast::File> file = parseFile(id, sm, diags);
    if (!file) {
      failed = true;
      continue;
    }
    fs::path dir = fs::path(sm.path(id)).parent_path();
    std::vector<Pending> imports;
    for (const ast::Decl &d : file->decls) {
      if (d.kind != ast::Decl::Kind::Import) continue;
      std::vector<fs::path> candidates;
      fs::path rel(d.path);
      if (rel.is_absolute()) {
        candidates.push_back(rel);
      } else {
        candidates.push_back(dir / rel);
        for (const std::string &inc : opts.includeDirs) candidates.push_back(fs::path(inc) / rel);
        if (!opts.stdlibDir.empty()) candidates.push_back(fs::path(opts.stdlibDir) / rel);
      }
      std::string found;
      for (const fs::path &c : candidates)
        if (isRegularFile(c)) {
          found = c.lexically_normal().string();
          break;
        }
      if (d.path.empty() || found.empty()) {
        std::string searched;
        for (const fs::path &c : candidates) searched += (searched.empty() ? "" : ", ") + c.lexically_normal().string();
        diags.error(d.exported.loc, "cannot find imported file '" + d.path +
                                        "' (looked next to the importing file, in the -I directories and in the "
                                        "stdlib directory)");
        diags.note(d.exported.loc, "searched: " + searched);
        failed = true;
        continue;
      }
      if (!seen.insert(canonicalKey(found)).second) continue;
      std::string contents;
      if (!readSourceFile(found, contents)) {
        diags.error(d.exported.loc, "cannot read imported file '" + found + "'");
        failed = true;
        continue;
      }
      if (dependencies) dependencies->push_back(found);
      imports.push_back({sm.addFile(found, std::move(contents))});
    }
    // Reversed so the first import is parsed next.
    stack.insert(stack.end(), imports.rbegin(), imports.rend());
    files.push_back(std::move(file));
  }
  if (failed) files.clear();
  return files;
}

} // namespace tk
