// The stdlib ops Gensor's Table IV names (matmul, gemv, conv2d, avgpool2d)
// as one module, for the construction benches.
#pragma once
#include "frontend/Frontend.h"

#include <optional>

namespace tk::bench {

// std/linalg.tk and std/nn.tk from the source tree's stdlib; errors go to `diags`.
std::optional<ir::Module> tableIVModule(SourceManager &sm, DiagEngine &diags);

} // namespace tk::bench
