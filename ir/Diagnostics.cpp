#include "ir/Diagnostics.h"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace tk {

// Longest source line a text diagnostic shows in full (bytes).
constexpr size_t kMaxShownLine = 200;

int SourceManager::addFile(std::string path, std::string contents) {
  // Line starts, so that each diagnostic finds its line in O(log n) (files
  // with thousands of errors). Files of 4 GiB or more are scanned instead.
  std::vector<uint32_t> lineStarts;
  if (contents.size() < UINT32_MAX) {
    lineStarts.push_back(0);
    for (size_t i = contents.find('\n'); i != std::string::npos; i = contents.find('\n', i + 1))
      lineStarts.push_back(static_cast<uint32_t>(i + 1));
  }
  files_.push_back({std::move(path), std::move(contents), std::move(lineStarts)});
  return static_cast<int>(files_.size() - 1);
}

int SourceManager::findFile(std::string_view path) const {
  for (size_t i = 0; i < files_.size(); ++i)
    if (files_[i].path == path) return static_cast<int>(i);
  return -1;
}

const std::string &SourceManager::path(int file) const { return files_.at(file).path; }
const std::string &SourceManager::contents(int file) const { return files_.at(file).contents; }

std::string_view SourceManager::lineText(int file, int line) const {
  if (file < 0 || file >= static_cast<int>(files_.size()) || line < 1) return {};
  const File &f = files_[file];
  std::string_view text = f.contents;
  size_t pos = 0;
  if (!f.lineStarts.empty()) {
    if (static_cast<size_t>(line) > f.lineStarts.size()) return {};
    pos = f.lineStarts[line - 1];
  } else {
    for (int l = 1; l < line; ++l) {
      pos = text.find('\n', pos);
      if (pos == std::string_view::npos) return {};
      ++pos;
    }
  }
  size_t end = text.find('\n', pos);
  std::string_view out = text.substr(pos, end == std::string_view::npos ? text.size() - pos : end - pos);
  if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
  return out;
}

static std::string_view severityName(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "error";
}

static std::string_view severityColor(Severity s) {
  switch (s) {
  case Severity::Error: return "\033[1;31m";
  case Severity::Warning: return "\033[1;35m";
  case Severity::Note: return "\033[1;36m";
  }
  return "";
}

std::string DiagEngine::renderText(const Diagnostic &d) const {
  std::ostringstream os;
  const char *bold = color_ ? "\033[1m" : "";
  const char *reset = color_ ? "\033[0m" : "";
  if (d.loc.valid()) {
    os << bold << sm_.path(d.loc.file) << ':' << d.loc.line << ':' << d.loc.col << ": " << reset;
  } else {
    os << bold << "tkc: " << reset;
  }
  if (color_) os << severityColor(d.severity);
  os << severityName(d.severity) << ": " << reset << bold << d.message << reset << '\n';
  if (d.loc.valid()) {
    std::string_view line = sm_.lineText(d.loc.file, d.loc.line);
    if (!line.empty() || d.loc.line > 0) {
      size_t caret = d.loc.col > 1 ? static_cast<size_t>(d.loc.col - 1) : 0; // bytes before the caret
      // A very long line (generated or minified code) is shown as a window
      // around the caret, cut at code-point boundaries, so that the output
      // stays proportional to the number of diagnostics.
      std::string_view lead, trail;
      if (line.size() > kMaxShownLine) {
        size_t begin = std::min(caret > kMaxShownLine / 2 ? caret - kMaxShownLine / 2 : 0, line.size() - kMaxShownLine);
        size_t end = begin + kMaxShownLine;
        auto continuation = [&](size_t i) { return (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80; };
        while (begin > 0 && continuation(begin)) --begin;
        while (end < line.size() && continuation(end)) ++end;
        if (begin > 0) lead = "...";
        if (end < line.size()) trail = "...";
        line = line.substr(begin, end - begin);
        caret -= std::min(caret, begin);
      }
      os << "  " << lead << line << trail << '\n' << "  " << std::string(lead.size(), ' ');
      // Keep tabs so the caret lines up under tab-indented source.
      for (size_t i = 0; i < caret && i < line.size(); ++i) os << (line[i] == '\t' ? '\t' : ' ');
      os << (color_ ? "\033[1;32m^\033[0m" : "^") << '\n';
    }
  }
  return os.str();
}

void DiagEngine::report(Severity s, SourceLoc loc, std::string msg) {
  if (s == Severity::Warning && werror_) s = Severity::Error;
  if (s == Severity::Error) ++errors_;
  if (errorLimit_ && errors_ > errorLimit_) {
    // The first error over the limit becomes the last diagnostic.
    if (limitReported_) return;
    limitReported_ = true;
    msg = fmt::format("too many errors (more than {}); stopping", errorLimit_);
  }
  diags_.push_back({s, loc, std::move(msg)});
  if (format_ == Format::Text) (os_ ? *os_ : std::cerr) << renderText(diags_.back());
}

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no
// overlong forms, no surrogates, at most U+10FFFF), or 0.
static size_t utf8Length(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = at(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((at(i + k) >> 6) != 2) return 0;
  if (n == 2 && c < 0xC2) return 0;                                       // overlong
  if (n == 3 && c == 0xE0 && at(i + 1) < 0xA0) return 0;                  // overlong
  if (n == 3 && c == 0xED && at(i + 1) >= 0xA0) return 0;                 // surrogate
  if (n == 4 && (c > 0xF4 || (c == 0xF0 && at(i + 1) < 0x90) || (c == 0xF4 && at(i + 1) >= 0x90))) return 0;
  return n;
}

// A JSON string: quotes, backslashes and control characters escaped, and
// every byte that is not part of well-formed UTF-8 (a Latin-1 source line)
// replaced by U+FFFD, so the document is valid JSON whatever the input.
static void jsonString(std::ostream &os, std::string_view s) {
  os << '"';
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      size_t n = utf8Length(s, i);
      if (n == 0) os << "\\ufffd";
      else os << s.substr(i, n), i += n - 1;
      continue;
    }
    switch (c) {
    case '"': os << "\\\""; break;
    case '\\': os << "\\\\"; break;
    case '\n': os << "\\n"; break;
    case '\t': os << "\\t"; break;
    case '\r': os << "\\r"; break;
    default:
      if (c < 0x20 || c == 0x7f) {
        static const char *hex = "0123456789abcdef";
        os << "\\u00" << hex[c >> 4] << hex[c & 15];
      } else {
        os << c;
      }
    }
  }
  os << '"';
}

void DiagEngine::flush() {
  if (format_ != Format::Json || flushed_) return;
  flushed_ = true;
  std::ostream &os = os_ ? *os_ : std::cerr;
  os << "[";
  for (size_t i = 0; i < diags_.size(); ++i) {
    const Diagnostic &d = diags_[i];
    os << (i ? ",\n " : "\n ") << "{\"severity\": ";
    jsonString(os, severityName(d.severity));
    os << ", \"file\": ";
    jsonString(os, d.loc.valid() ? std::string_view(sm_.path(d.loc.file)) : std::string_view());
    os << ", \"line\": " << d.loc.line << ", \"column\": " << d.loc.col << ", \"message\": ";
    jsonString(os, d.message);
    os << ", \"source\": ";
    jsonString(os, d.loc.valid() ? sm_.lineText(d.loc.file, d.loc.line) : std::string_view());
    os << "}";
  }
  os << (diags_.empty() ? "]\n" : "\n]\n");
}

} // namespace tk
