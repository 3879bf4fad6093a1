// Diagnostics: located error/warning/note messages in the form
//   file:line:col: error: message
//     <source line>
//         ^
// rendered as text (optionally coloured) or as a JSON array. Every stage of
// the compiler reports through one DiagEngine so late checks point at the
// user's source just like parse errors do.
#pragma once
#include "ir/SourceLoc.h"

#include <fmt/format.h>

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tk {

// Owns the text of every file read in one compilation.
class SourceManager {
public:
  int addFile(std::string path, std::string contents); // returns file id
  int findFile(std::string_view path) const;           // -1 if absent
  const std::string &path(int file) const;
  const std::string &contents(int file) const;
  std::string_view lineText(int file, int line) const; // without newline
  size_t fileCount() const { return files_.size(); }

private:
  struct File {
    std::string path, contents;
    std::vector<uint32_t> lineStarts; // byte offset of each line (empty: file of 4 GiB or more)
  };
  std::vector<File> files_;
};

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity;
  SourceLoc loc;
  std::string message;
};

class DiagEngine {
public:
  enum class Format { Text, Json };
  explicit DiagEngine(const SourceManager &sm) : sm_(sm) {}

  void setFormat(Format f) { format_ = f; }
  Format format() const { return format_; }
  void setColor(bool on) { color_ = on; }
  void setStream(std::ostream *os) { os_ = os; } // default std::cerr
  void setWarningsAsErrors(bool on) { werror_ = on; }
  // Once `n` errors have been reported (0: no limit), the next error is
  // replaced by "too many errors (more than n); stopping" (at its location)
  // and every later diagnostic is dropped
  // (still counted by errorCount()); errorLimitReached() then tells long
  // checks to stop early. This bounds the work and output on inputs with
  // thousands of errors.
  void setErrorLimit(size_t n) { errorLimit_ = n; }
  bool errorLimitReached() const { return errorLimit_ && errors_ > errorLimit_; }

  void error(SourceLoc loc, std::string msg) { report(Severity::Error, loc, std::move(msg)); }
  void warning(SourceLoc loc, std::string msg) { report(Severity::Warning, loc, std::move(msg)); }
  void note(SourceLoc loc, std::string msg) { report(Severity::Note, loc, std::move(msg)); }
  // Formatting overloads: error(loc, "expected {} got {}", a, b) formats
  // with fmt (format string checked at compile time) and reports the result.
  template <typename... Args>
    requires(sizeof...(Args) > 0)
  void error(SourceLoc loc, fmt::format_string<Args...> f, Args &&...args) {
    report(Severity::Error, loc, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
    requires(sizeof...(Args) > 0)
  void warning(SourceLoc loc, fmt::format_string<Args...> f, Args &&...args) {
    report(Severity::Warning, loc, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
    requires(sizeof...(Args) > 0)
  void note(SourceLoc loc, fmt::format_string<Args...> f, Args &&...args) {
    report(Severity::Note, loc, fmt::format(f, std::forward<Args>(args)...));
  }
  void report(Severity s, SourceLoc loc, std::string msg);

  size_t errorCount() const { return errors_; }
  bool hasErrors() const { return errors_ > 0; }
  const std::vector<Diagnostic> &all() const { return diags_; }

  // Text diagnostics are written as they are reported; JSON ones are written
  // as one array by flush(), which the driver calls once before exiting.
  void flush();
  // Render one diagnostic as text (used by report and by tests).
  std::string renderText(const Diagnostic &d) const;

private:
  const SourceManager &sm_;
  std::vector<Diagnostic> diags_;
  Format format_ = Format::Text;
  bool color_ = false;
  bool werror_ = false;
  bool flushed_ = false;
  std::ostream *os_ = nullptr;
  size_t errors_ = 0;
  size_t errorLimit_ = 100;
  bool limitReported_ = false;
};

// Thrown for compiler bugs (violated invariants). The driver turns it into
// "tkc: internal error: ..." and exit status 4.
struct InternalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace tk
