#include "PtxStatements.h"

#include <fmt/format.h>

#include <cctype>
#include <cstring>

namespace tk::cuemu {

namespace {

// Removes comments, keeping newlines so line numbers stay right.
std::string stripComments(const std::string &s, std::string *error) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') { // strings (e.g. .pragma "nounroll") may hold slashes
      size_t j = s.find('"', i + 1);
      if (j == std::string::npos) j = s.size() - 1;
      out.append(s, i, j - i + 1);
      i = j;
    } else if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') ++i;
      if (i < s.size()) out += '\n';
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t j = s.find("*/", i + 2);
      if (j == std::string::npos) {
        *error = "unterminated /* comment";
        return {};
      }
      for (size_t k = i; k < j; ++k)
        if (s[k] == '\n') out += '\n';
      i = j + 1;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string collapse(const std::string &s) {
  std::string out;
  bool blank = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      blank = !out.empty();
    } else {
      if (blank) out += ' ';
      blank = false;
      out += c;
    }
  }
  return out;
}

// Directives that end at the end of their line, without ';'.
bool lineDirective(const std::string &cur) {
  size_t i = cur.find_first_not_of(" \t\r");
  if (i == std::string::npos || cur[i] != '.') return false;
  for (const char *d : {".version", ".target", ".address_size", ".file", ".loc"})
    if (cur.compare(i, std::strlen(d), d) == 0 && (cur.size() == i + std::strlen(d) || !std::isalnum(static_cast<unsigned char>(cur[i + std::strlen(d)]))))
      return true;
  return false;
}

// A '{' opens a block (not an operand list) after nothing, or after a
// function or section header.
bool isBlockHeader(const std::string &pending) {
  if (pending.empty() || pending.back() == ')') return true;
  if (pending[0] != '.') return false;
  for (const char *d : {".entry", ".func", ".section", ".maxntid", ".reqntid", ".minnctapersm", ".maxnreg"})
    if (pending.find(d) != std::string::npos) return true;
  return false;
}

} // namespace

std::vector<std::string> splitWords(const std::string &s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ' ' || c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Splits an operand list at top-level commas.
std::vector<std::string> splitOperands(const std::string &s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else if (c != ' ' || !cur.empty()) {
      cur += c;
    }
  }
  while (!cur.empty() && cur.back() == ' ') cur.pop_back();
  if (!cur.empty()) out.push_back(cur);
  for (std::string &o : out)
    while (!o.empty() && o.back() == ' ') o.pop_back();
  return out;
}

bool parseInteger(const std::string &s, int64_t *v) {
  if (s.empty()) return false;
  const char *p = s.c_str();
  char *end = nullptr;
  bool neg = *p == '-';
  if (neg) ++p;
  uint64_t u = std::strtoull(p, &end, (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ? 16 : 10);
  if (end == p) return false;
  if (*end == 'U' || *end == 'u') ++end;
  if (*end) return false;
  *v = neg ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
  return true;
}

std::vector<Statement> splitStatements(const std::string &ptx, std::string *error) {
  std::string s = stripComments(ptx, error);
  if (!error->empty()) return {};
  std::vector<Statement> out;
  std::string cur;
  int line = 1, startLine = 1;
  int skipDepth = 0; // inside a .section { ... }
  int opDepth = 0;   // braces opened inside the current statement
  bool started = false;
  auto flush = [&](Statement::Kind kind) {
    std::string t = collapse(cur);
    cur.clear();
    opDepth = 0;
    started = false;
    if (kind == Statement::Text && t.empty()) return;
    if (skipDepth == 0) out.push_back({t, startLine, kind});
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (!started && !std::isspace(static_cast<unsigned char>(c))) {
      started = true;
      startLine = line;
    }
    if (c == '\n') {
      ++line;
      cur += ' ';
      if (lineDirective(cur)) flush(Statement::Text);
    } else if (c == ';') {
      flush(Statement::Text);
    } else if (c == '{' && opDepth == 0 && isBlockHeader(collapse(cur))) {
      std::string pending = collapse(cur);
      if (pending.rfind(".section", 0) == 0) { // debug information: dropped
        cur.clear();
        started = false;
        ++skipDepth;
        continue;
      }
      if (!pending.empty()) flush(Statement::Text);
      cur.clear();
      started = false;
      if (skipDepth == 0) out.push_back({"{", line, Statement::Open});
      else ++skipDepth;
    } else if (c == '}' && opDepth == 0) {
      if (!collapse(cur).empty()) {
        *error = fmt::format("line {}: '}}' inside an unfinished statement", line);
        return {};
      }
      cur.clear();
      started = false;
      if (skipDepth > 0) --skipDepth;
      else out.push_back({"}", line, Statement::Close});
    } else if (c == '{' || c == '}') { // a vector operand or an initializer
      opDepth += c == '{' ? 1 : -1;
      cur += c;
    } else if (c == ':' && i + 1 < s.size() && s[i + 1] != ':' && (i == 0 || s[i - 1] != ':')) {
      std::string t = collapse(cur);
      bool ident = !t.empty() && t.find(' ') == std::string::npos && t.find('[') == std::string::npos &&
                   t.find('.') == std::string::npos;
      if (ident) {
        cur = t;
        flush(Statement::Label);
      } else {
        cur += c;
      }
    } else {
      cur += c;
    }
  }
  if (!collapse(cur).empty() && skipDepth == 0) {
    *error = fmt::format("line {}: statement without ';' at the end of the text", startLine);
    return {};
  }
  return out;
}

} // namespace tk::cuemu
