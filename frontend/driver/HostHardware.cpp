#include "frontend/driver/HostHardware.h"

#include "scheduler/costmodel/Records.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace tk::driver {

using construct::HardwareDesc;
using construct::MemLevel;

namespace {

std::string readLine(const std::string &path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// "48K" / "1024K" / "32M" as sysfs writes cache sizes.
int64_t sysfsSize(const std::string &s) {
  if (s.empty()) return 0;
  int64_t n = std::atoll(s.c_str());
  char unit = s.back();
  return unit == 'K' ? n << 10 : unit == 'M' ? n << 20 : unit == 'G' ? n << 30 : n;
}

} // namespace

HardwareDesc detectHostHardware() {
  HardwareDesc h;
  h.name = "host";
  h.family = ir::TargetFamily::Cpu;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  h.units = n > 0 ? static_cast<int>(n) : 1;
  __builtin_cpu_init();
  h.vectorBits = __builtin_cpu_supports("avx512f") ? 512 : __builtin_cpu_supports("avx2") ? 256 : 128;
  // Two FMA pipes at ~3 GHz: 2 * 2 flops * lanes * 3 GHz.
  h.gflopsF32 = 2 * 2 * (h.vectorBits / 32) * 3.0;
  constexpr double kDramPerCore = 10; // GB/s; a conservative share of DRAM bandwidth
  h.levels.push_back({"dram", 16LL << 30, kDramPerCore * h.units, 90, 64, 0, 0, true, {}});
  // Data and unified caches, largest (slowest) first.
  std::vector<MemLevel> caches;
  for (int i = 0; i < 8; ++i) {
    std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", i);
    std::string type = readLine(dir + "type");
    if (type.empty()) break;
    if (type == "Instruction") continue;
    std::string lvl = readLine(dir + "level");
    int64_t size = sysfsSize(readLine(dir + "size"));
    if (size <= 0) continue;
    int64_t line = std::atoll(readLine(dir + "coherency_line_size").c_str());
    std::string sharedList = readLine(dir + "shared_cpu_list");
    bool shared = lvl == "3" || (sharedList.find_first_of(",-") != std::string::npos && lvl != "1");
    // Per-level estimates: bandwidth in bytes/cycle at 3 GHz, latency in ns.
    double bw = lvl == "1" ? 192 : lvl == "2" ? 96 : 32 * h.units;
    double lat = lvl == "1" ? 1.3 : lvl == "2" ? 4.5 : 15;
    caches.insert(caches.begin(), {"l" + lvl, size, bw, lat, line > 0 ? line : 64, 0, 0, shared, {}});
  }
  if (caches.empty())
    caches = {{"l2", 1 << 20, 96, 4.5, 64, 0, 0, false, {}}, {"l1", 32 << 10, 192, 1.3, 64, 0, 0, false, {}}};
  for (const MemLevel &c : caches) h.levels.push_back(c);
  int64_t regs = 32LL * (h.vectorBits / 8) / (h.vectorBits == 512 ? 1 : 2);
  h.levels.push_back({"registers", regs, 384, 0.3, h.vectorBits / 8, 0, 0, false, {}});
  return h;
}

std::string hostHardwareId() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown-cpu", family;
  auto value = [&]() -> std::string { // what follows "key :", blanks skipped
    size_t colon = line.find(':');
    size_t at = colon == std::string::npos ? colon : line.find_first_not_of(" \t", colon + 1);
    return at == std::string::npos ? "" : line.substr(at);
  };
  while (std::getline(in, line) && (model == "unknown-cpu" || family.empty())) {
    if (line.rfind("model name", 0) == 0) {
      model = value();
    } else if (line.rfind("cpu family", 0) == 0) {
      if (std::string v = value(); !v.empty()) family = "f" + v;
    }
  }
  __builtin_cpu_init();
  const char *isa = __builtin_cpu_supports("avx512f") ? "avx512" : __builtin_cpu_supports("avx2") ? "avx2" : "sse2";
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return costmodel::hardwareId("host", fmt::format("{} {} {}", model, family, isa), n > 0 ? static_cast<int>(n) : 1);
}

} // namespace tk::driver
