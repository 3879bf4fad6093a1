// The convention of the scheduler's `...Applies(..., std::string *reason)`
// predicates (TACO's `applies`): a refusal says why when asked, and is false.
#pragma once
#include <string>
#include <utility>

namespace tk {

inline bool refuse(std::string *reason, std::string why) {
  if (reason) *reason = std::move(why);
  return false;
}

} // namespace tk
