#include "scheduler/looptune/Actions.h"

#include "ir/Diagnostics.h"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace tk::looptune {
namespace {

constexpr std::array<std::string_view, kNumActions> kNames = {
    "up", "down", "swap_up", "swap_down", "split_2", "split_4", "split_8", "split_16", "split_32", "split_64"};

bool refuse(std::string *reason, std::string why) {
  if (reason) *reason = std::move(why);
  return false;
}

// The nest after `a`, without legality checks beyond index bounds.
TuneNest transform(const TuneNest &n, Action a) {
  TuneNest r = n;
  int c = n.cursor;
  switch (a) {
  case Action::Up: r.cursor = c - 1; break;
  case Action::Down: r.cursor = c + 1; break;
  case Action::SwapUp:
    std::swap(r.loops[c], r.loops[c - 1]);
    r.cursor = c - 1;
    break;
  case Action::SwapDown:
    std::swap(r.loops[c], r.loops[c + 1]);
    r.cursor = c + 1;
    break;
  default: {
    NestLoop outer = n.loops[c];
    outer.step = n.loops[c].step * splitFactor(a);
    r.loops.insert(r.loops.begin() + c, outer);
    r.cursor = c + 1;
  }
  }
  return r;
}

} // namespace

std::string_view actionName(Action a) { return kNames[static_cast<int>(a)]; }

std::optional<Action> parseAction(std::string_view name) {
  for (int i = 0; i < kNumActions; ++i)
    if (kNames[i] == name) return static_cast<Action>(i);
  return std::nullopt;
}

int64_t splitFactor(Action a) {
  int i = static_cast<int>(a) - static_cast<int>(Action::Split2);
  return i < 0 ? 0 : int64_t{2} << i;
}

bool innermostVectorizable(const TuneNest &n, int vectorLanes, std::string *reason) {
  int l = static_cast<int>(n.loops.size()) - 1;
  int64_t range = enclosingRange(n, l);
  if (loopSize(n, l) == 1 || range % vectorLanes == 0 || range == n.vars[n.loops[l].var].extent) return true;
  return refuse(reason, fmt::format("the innermost loop ({}, {} iterations) is not vectorizable: not a multiple of "
                                    "{} lanes",
                                    n.vars[n.loops[l].var].name, range, vectorLanes));
}

bool applies(const TuneNest &n, Action a, int vectorLanes, std::string *reason) {
  int c = n.cursor, last = static_cast<int>(n.loops.size()) - 1;
  switch (a) {
  case Action::Up:
    if (c == 0) return refuse(reason, "the cursor is on the outermost loop");
    return true;
  case Action::Down:
    if (c == last) return refuse(reason, "the cursor is on the innermost loop");
    return true;
  case Action::SwapUp:
  case Action::SwapDown: {
    int other = a == Action::SwapUp ? c - 1 : c + 1;
    if (other < 0 || other > last)
      return refuse(reason, a == Action::SwapUp ? "no loop above the cursor" : "no loop below the cursor");
    if (n.loops[other].var == n.loops[c].var)
      return refuse(reason, "both loops iterate '" + n.vars[n.loops[c].var].name + "'");
    break;
  }
  default:
    if (last + 1 >= kMaxLoops) return refuse(reason, "the nest already has 10 loops");
    if (n.loops[c].step * splitFactor(a) >= enclosingRange(n, c))
      return refuse(reason, fmt::format("split by {} leaves a single outer iteration", splitFactor(a)));
    break;
  }
  return innermostVectorizable(transform(n, a), vectorLanes, reason);
}

TuneNest applyAction(const TuneNest &n, Action a, int vectorLanes) {
  std::string why;
  if (!applies(n, a, vectorLanes, &why))
    throw InternalError("looptune: " + std::string(actionName(a)) + " does not apply: " + why);
  return transform(n, a);
}

} // namespace tk::looptune
