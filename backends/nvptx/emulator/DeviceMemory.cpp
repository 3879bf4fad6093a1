#include "DeviceMemory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace tk::cuemu {

DeviceMemory::~DeviceMemory() {
  for (auto &[base, p] : owned) std::free(p);
}

void *DeviceMemory::allocate(size_t bytes) {
  size_t n = std::max<size_t>(bytes, 1);
  // Round the block up so that vector loads just inside the end stay inside
  // the host block; the checked range is still exactly `bytes`.
  void *p = std::aligned_alloc(256, (n + 255) / 256 * 256);
  if (!p) return nullptr;
  std::memset(p, 0, (n + 255) / 256 * 256);
  std::lock_guard<std::mutex> g(lock);
  ranges[reinterpret_cast<uint64_t>(p)] = n;
  owned[reinterpret_cast<uint64_t>(p)] = p;
  return p;
}

bool DeviceMemory::release(void *p) {
  std::lock_guard<std::mutex> g(lock);
  auto it = owned.find(reinterpret_cast<uint64_t>(p));
  if (it == owned.end()) return false;
  std::free(it->second);
  owned.erase(it);
  ranges.erase(reinterpret_cast<uint64_t>(p));
  return true;
}

void DeviceMemory::addRange(uint64_t base, uint64_t size) {
  std::lock_guard<std::mutex> g(lock);
  ranges[base] = size;
}

void DeviceMemory::removeRange(uint64_t base) {
  std::lock_guard<std::mutex> g(lock);
  ranges.erase(base);
}

std::vector<Range> DeviceMemory::snapshot() const {
  std::lock_guard<std::mutex> g(lock);
  std::vector<Range> out;
  out.reserve(ranges.size());
  for (auto &[b, s] : ranges) out.push_back({b, s});
  return out;
}

bool DeviceMemory::contains(uint64_t p, uint64_t bytes) const {
  std::lock_guard<std::mutex> g(lock);
  auto it = ranges.upper_bound(p);
  if (it == ranges.begin()) return false;
  --it;
  return p >= it->first && p - it->first <= it->second && bytes <= it->second - (p - it->first);
}

const Range *findRange(const std::vector<Range> &ranges, uint64_t addr, uint64_t bytes) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), addr, [](uint64_t a, const Range &r) { return a < r.base; });
  if (it == ranges.begin()) return nullptr;
  --it;
  uint64_t off = addr - it->base;
  return off < it->size && bytes <= it->size - off ? &*it : nullptr;
}

std::string describeAddress(const std::vector<Range> &ranges, uint64_t addr) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), addr, [](uint64_t a, const Range &r) { return a < r.base; });
  if (it != ranges.begin()) {
    const Range &r = *(it - 1);
    if (addr - r.base < r.size) return fmt::format("{:#x} is {} bytes into a {}-byte allocation at {:#x}", addr, addr - r.base, r.size, r.base);
    if (addr - r.base - r.size < 4096)
      return fmt::format("{:#x} is {} bytes past the end of a {}-byte allocation at {:#x}", addr, addr - r.base - r.size, r.size, r.base);
  }
  if (it != ranges.end() && it->base - addr < 4096)
    return fmt::format("{:#x} is {} bytes before a {}-byte allocation at {:#x}", addr, it->base - addr, it->size, it->base);
  return fmt::format("{:#x} is in no allocation", addr);
}

} // namespace tk::cuemu
