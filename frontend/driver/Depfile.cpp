#include "frontend/driver/Depfile.h"

#include <algorithm>

namespace tk::driver {

std::string escapeDepfilePath(const std::string &path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    char c = path[i];
    if (c == ' ' || c == '#') {
      // Backslashes right before an escaped character are doubled so the
      // reader does not take them as escaping our backslash.
      for (size_t j = i; j > 0 && path[j - 1] == '\\'; --j) out += '\\';
      out += '\\';
      out += c;
    } else if (c == '$') {
      out += "$$";
    } else {
      out += c;
    }
  }
  return out;
}

std::string makeDepfile(const std::vector<std::string> &targets, const std::vector<std::string> &deps,
                        const std::vector<std::string> &phony) {
  std::string out;
  for (const std::string &t : targets) out += (out.empty() ? "" : " ") + t;
  out += ":";
  std::vector<std::string> seen;
  for (const std::string &d : deps) {
    if (std::find(seen.begin(), seen.end(), d) != seen.end()) continue;
    seen.push_back(d);
    out += " \\\n  " + escapeDepfilePath(d);
  }
  out += "\n";
  std::vector<std::string> done;
  for (const std::string &d : phony) {
    if (std::find(done.begin(), done.end(), d) != done.end()) continue;
    done.push_back(d);
    out += "\n" + escapeDepfilePath(d) + ":\n";
  }
  return out;
}

} // namespace tk::driver
