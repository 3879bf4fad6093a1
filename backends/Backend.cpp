// The backend registry: one line per backend built into this tkc. Optional
// backends are compiled in when their library exists (TK_HAVE_<NAME>,
// set by backends/CMakeLists.txt).
#include "backends/Backend.h"

#include "backends/x86/X86Backend.h"
#ifdef TK_HAVE_NVPTX
#include "backends/nvptx/NvptxBackend.h"
#endif
#ifdef TK_HAVE_SUNWAY
#include "backends/sunway/SunwayBackend.h"
#endif

#include <fmt/format.h>

#include <memory>

namespace tk::backend {

const std::vector<const Backend *> &registeredBackends() {
  // Built on first use and kept for the process: backends are stateless.
  static const std::vector<std::unique_ptr<const Backend>> owned = [] {
    std::vector<std::unique_ptr<const Backend>> v;
    v.push_back(createX86Backend());
#ifdef TK_HAVE_NVPTX
    v.push_back(createNvptxBackend());
#endif
#ifdef TK_HAVE_SUNWAY
    v.push_back(createSunwayBackend());
#endif
    return v;
  }();
  static const std::vector<const Backend *> all = [] {
    std::vector<const Backend *> v;
    for (const auto &b : owned) v.push_back(b.get());
    return v;
  }();
  return all;
}

const Backend *findBackend(ir::TargetFamily family) {
  for (const Backend *b : registeredBackends())
    if (b->family() == family) return b;
  return nullptr;
}

std::string allTargetNames() {
  std::string out;
  for (const Backend *b : registeredBackends())
    for (const std::string &n : b->targetNames()) out += (out.empty() ? "" : " ") + n;
  return out;
}

std::optional<Target> resolveTarget(const std::string &targetName, std::string *error) {
  for (const Backend *b : registeredBackends())
    if (b->claims(targetName)) return b->resolve(targetName, error);
  if (error) *error = fmt::format("unknown target '{}' (expected one of: {})", targetName, allTargetNames());
  return std::nullopt;
}

} // namespace tk::backend
