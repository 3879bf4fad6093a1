// Named CUDA targets -> LLVM NVPTX CPU and PTX ISA version.
#include "backends/nvptx/NvptxBackend.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tk {

namespace {
struct Named {
  const char *name, *sm, *ptx;
};
// PTX 7.8 (CUDA 12.0) is the first ISA with sm_90; sm_90a needs 8.0. Using
// the oldest version that covers the architecture keeps the PTX loadable
// by the oldest driver that can run it.
const Named kNamed[] = {{"cuda-sm_80", "sm_80", "+ptx78"},
                        {"cuda-sm_90", "sm_90", "+ptx78"},
                        {"cuda-sm_90a", "sm_90a", "+ptx80"},
                        {"cuda", "sm_90", "+ptx78"}};
} // namespace

std::vector<std::string> cudaTargetNames() {
  std::vector<std::string> names;
  for (const Named &n : kNamed) names.push_back(n.name);
  return names;
}

std::optional<CudaTarget> resolveCudaTarget(const std::string &name, std::string *error) {
  for (const Named &n : kNamed)
    if (name == n.name) return CudaTarget{n.name, n.sm, n.ptx};
  if (error)
    *error = fmt::format("unknown CUDA target '{}' (expected one of: {})", name, fmt::join(cudaTargetNames(), " "));
  return std::nullopt;
}

} // namespace tk
