// LoopTune's cursor action space over a TuneNest: up and down move the
// cursor; swap_up and swap_down exchange the cursor's loop with its
// neighbour (the cursor follows the loop); split_K (K = 2, 4, .., 64) splits
// the cursor's loop into an outer loop of step K*step and the loop itself of
// at most K iterations (the outer loop's last iteration is a tail when K*step
// does not divide the range). The cursor stays on the inner part.
#pragma once
#include "scheduler/looptune/TuneNest.h"

#include <optional>
#include <string>
#include <string_view>

namespace tk::looptune {

enum class Action { Up, Down, SwapUp, SwapDown, Split2, Split4, Split8, Split16, Split32, Split64 };
inline constexpr int kNumActions = 10;

std::string_view actionName(Action a); // "up", "swap_down", "split_16", ...
std::optional<Action> parseAction(std::string_view name);
// The split factor of a split action, 0 for the others.
int64_t splitFactor(Action a);

// Whether `a` applies to `n`; when not, *reason says why. Illegal: moving
// the cursor past either end; swapping two loops over the same variable
// (their steps must decrease inwards); a split that leaves the loop with a
// single outer iteration (K*step >= range) or makes more than kMaxLoops
// loops; any result whose innermost loop is not vectorizable: it must run
// once, or iterate a range that is a multiple of `vectorLanes`, or be the
// only loop over its variable (whole extent: the backend masks the tail).
bool applies(const TuneNest &n, Action a, int vectorLanes, std::string *reason);

// The nest after `a`; requires applies(n, a, ...), else throws InternalError.
TuneNest applyAction(const TuneNest &n, Action a, int vectorLanes);

// Whether the innermost loop of `n` is vectorizable (see applies).
bool innermostVectorizable(const TuneNest &n, int vectorLanes, std::string *reason);

} // namespace tk::looptune
