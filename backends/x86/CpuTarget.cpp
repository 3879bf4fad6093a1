// Named CPU targets -> LLVM triple, CPU and feature string.
#include "backends/x86/X86Backend.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>

namespace tk {

static constexpr const char *kLinuxTriple = "x86_64-pc-linux-gnu";

// Host features come from a hash map; sorting them keeps the feature string
// (and therefore the emitted code) identical between runs.
static CpuTarget hostTarget() {
  CpuTarget t;
  t.name = "host";
  t.triple = llvm::Triple::normalize(llvm::sys::getDefaultTargetTriple());
  t.cpu = llvm::sys::getHostCPUName().str();
  auto features = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> names;
  for (const auto &f : features) names.push_back((f.second ? "+" : "-") + f.first().str());
  std::sort(names.begin(), names.end(), [](const std::string &a, const std::string &b) {
    return a.substr(1) < b.substr(1);
  });
  for (const std::string &n : names) t.features += (t.features.empty() ? "" : ",") + n;
  auto has = [&](const char *f) {
    auto it = features.find(f);
    return it != features.end() && it->second;
  };
  t.vectorBits = has("avx512f") ? 512 : has("avx2") || has("avx") ? 256 : 128;
  t.vectorRegisters = t.vectorBits == 512 ? 32 : 16;
  t.byteDot = t.vectorBits == 512 && has("avx512vnni");
  return t;
}

TargetDesc cpuTargetDesc(const CpuTarget &t) {
  TargetDesc d{ir::TargetFamily::Cpu, t.vectorBits, t.vectorRegisters};
  d.byteDot = t.byteDot;
  return d;
}

std::optional<CpuTarget> resolveCpuTarget(const std::string &name, std::string *error) {
  if (name == "host") {
    if (llvm::Triple(llvm::sys::getDefaultTargetTriple()).getArch() != llvm::Triple::x86_64) {
      if (error) *error = "target 'host' is not x86-64; name an x86_64 target explicitly";
      return std::nullopt;
    }
    return hostTarget();
  }
  struct Named {
    const char *name, *cpu, *features;
    int bits;
  };
  static const Named kNamed[] = {{"x86_64", "x86-64", "", 128},
                                 {"x86_64-avx2", "x86-64-v3", "", 256},
                                 {"x86_64-avx512", "x86-64-v4", "", 512},
                                 {"x86_64-avx512vnni", "x86-64-v4", "+avx512vnni", 512}};
  for (const Named &n : kNamed)
    if (name == n.name)
      return CpuTarget{n.name, kLinuxTriple, n.cpu, n.features, n.bits, n.bits == 512 ? 32 : 16, *n.features != 0};
  if (error)
    *error = "unknown CPU target '" + name +
             "' (expected host, x86_64, x86_64-avx2, x86_64-avx512 or x86_64-avx512vnni)";
  return std::nullopt;
}

} // namespace tk
