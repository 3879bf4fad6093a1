#include "frontend/SemaScope.h"

#include <fmt/format.h>

#include <algorithm>

namespace tk::sema {

std::vector<std::pair<std::string, Binding>> Scope::pop() {
  std::vector<std::pair<std::string, Binding>> out(levels_.back().begin(), levels_.back().end());
  levels_.pop_back();
  return out;
}

bool Scope::declare(const std::string &name, Binding b, Binding *previous) {
  auto [it, inserted] = levels_.back().emplace(name, std::move(b));
  if (!inserted && previous) *previous = it->second;
  return inserted;
}

Binding *Scope::lookup(const std::string &name) {
  for (auto level = levels_.rbegin(); level != levels_.rend(); ++level) {
    auto it = level->find(name);
    if (it != level->end()) return &it->second;
  }
  return nullptr;
}

std::vector<std::string> Scope::visibleNames(std::optional<Binding::Kind> kind) const {
  std::vector<std::string> out;
  for (const auto &level : levels_)
    for (const auto &[name, b] : level)
      if (!kind || b.kind == *kind) out.push_back(name);
  return out;
}

static size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closestName(const std::string &name, const std::vector<std::string> &candidates) {
  // A one-letter name is "close" to every other one-letter name; only
  // suggest when the edit is small relative to the name.
  size_t limit = std::min<size_t>(2, std::max<size_t>(1, name.size() / 3));
  std::string best;
  size_t bestDist = limit + 1;
  for (const std::string &c : candidates) {
    if (c == name || c.size() > name.size() + limit) continue;
    size_t d = editDistance(name, c);
    if (d < bestDist || (d == bestDist && c < best)) best = c, bestDist = d;
  }
  return bestDist <= limit && !(name.size() == 1 && bestDist >= 1 && best.size() == 1) ? best : "";
}

std::string didYouMean(const std::string &name, const std::vector<std::string> &candidates) {
  std::string c = closestName(name, candidates);
  return c.empty() ? "" : "; did you mean '" + c + "'?";
}

std::string lineCol(SourceLoc loc) { return fmt::format("{}:{}", loc.line, loc.col); }

} // namespace tk::sema
