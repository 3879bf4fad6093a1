// SourceLoc: a position in a .tk source file. Locations are attached to every
// AST node and carried through all three IR levels so that late checks (task
// mapping coverage, hole filling, backend limits) still point at user code.
#pragma once
#include <cstdint>

namespace tk {

struct SourceLoc {
  int32_t file = -1; // index into SourceManager; -1 = no location
  int32_t line = 0;  // 1-based
  int32_t col = 0;   // 1-based, in bytes
  bool valid() const { return file >= 0; }
};

} // namespace tk
