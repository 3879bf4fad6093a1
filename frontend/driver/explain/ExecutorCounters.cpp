#include "frontend/driver/explain/ExecutorCounters.h"

#include "frontend/driver/explain/HotLoop.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace tk::explain {

namespace {

uint64_t number(const CounterRecord &r, const char *key) {
  auto it = r.find(key);
  uint64_t v = 0;
  if (it != r.end()) std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  return v;
}

double real(const CounterRecord &r, const char *key) {
  auto it = r.find(key);
  return it == r.end() ? 0.0 : std::strtod(it->second.c_str(), nullptr);
}

std::string text(const CounterRecord &r, const char *key) {
  auto it = r.find(key);
  return it == r.end() ? "" : it->second;
}

double ratio(uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 1.0; }

} // namespace

std::optional<std::vector<CounterRecord>> parseCounterRecords(std::string_view text, std::string *error) {
  std::vector<CounterRecord> out;
  size_t lineNo = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++lineNo;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    CounterRecord r;
    while (!line.empty()) {
      size_t tab = line.find('\t');
      std::string_view field = line.substr(0, tab);
      line = tab == std::string_view::npos ? std::string_view() : line.substr(tab + 1);
      size_t eq = field.find('=');
      if (eq == std::string_view::npos || eq == 0) {
        if (error) *error = fmt::format("line {}: '{}' is not a key=value field", lineNo, field);
        return std::nullopt;
      }
      r[std::string(field.substr(0, eq))] = std::string(field.substr(eq + 1));
    }
    if (!r.count("kernel")) {
      if (error) *error = fmt::format("line {}: the record names no kernel (kernel=NAME)", lineNo);
      return std::nullopt;
    }
    out.push_back(std::move(r));
  }
  return out;
}

double KernelCounters::loadEfficiency() const { return ratio(globalLoadBytes, 32 * globalLoadSectors); }
double KernelCounters::storeEfficiency() const { return ratio(globalStoreBytes, 32 * globalStoreSectors); }
double KernelCounters::sharedConflictFactor() const { return ratio(sharedWavefronts, sharedIdealWavefronts); }

std::vector<KernelCounters> countersOf(const std::vector<CounterRecord> &records, const std::string &symbol) {
  std::map<long, KernelCounters> byIndex;
  for (const CounterRecord &r : records) {
    std::string name = text(r, "kernel");
    long n = deviceKernelIndex(name, symbol);
    if (n < 0) continue;
    KernelCounters &k = byIndex[n];
    k.kernel = name;
    ++k.launches;
    k.grid = text(r, "grid");
    k.block = text(r, "block");
    k.warpInstructions += number(r, "warp_instructions");
    k.mma += number(r, "kind_tensor") / 32; // counted per lane; one mma is a warp instruction
    k.globalLoadSectors += number(r, "global_load_sectors");
    k.globalLoadBytes += number(r, "global_load_bytes");
    k.globalStoreSectors += number(r, "global_store_sectors");
    k.globalStoreBytes += number(r, "global_store_bytes");
    k.sharedRequests += number(r, "shared_requests");
    k.sharedWavefronts += number(r, "shared_wavefronts");
    k.sharedIdealWavefronts += number(r, "shared_ideal_wavefronts");
    k.sharedMaxWays = std::max<uint32_t>(k.sharedMaxWays, static_cast<uint32_t>(number(r, "shared_max_ways")));
    k.branches += number(r, "branches");
    k.divergentBranches += number(r, "divergent_branches");
    k.registersPerThread = static_cast<uint32_t>(number(r, "registers_per_thread"));
    k.theoreticalOccupancy = real(r, "theoretical_occupancy");
    k.achievedOccupancy = real(r, "achieved_occupancy");
    k.occupancyLimit = text(r, "occupancy_limit");
  }
  std::vector<KernelCounters> out;
  for (auto &[n, k] : byIndex) out.push_back(std::move(k));
  return out;
}

} // namespace tk::explain
