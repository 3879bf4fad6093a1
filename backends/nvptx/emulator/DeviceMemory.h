// DeviceMemory: the executor's "device" memory — host memory handed out by
// cuMemAlloc, remembered as ranges so that every global access a kernel
// makes can be checked against what was allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tk::cuemu {

struct Range {
  uint64_t base = 0, size = 0;
};

class DeviceMemory {
public:
  ~DeviceMemory();
  // 256-byte aligned, zero-filled memory of `bytes` (at least 1); nullptr
  // when the host has none.
  void *allocate(size_t bytes);
  // False when p is not the start of a live allocation.
  bool release(void *p);
  // Memory the driver owns for a module (.global variables).
  void addRange(uint64_t base, uint64_t size);
  void removeRange(uint64_t base);
  // The live ranges sorted by address, for a launch to check against.
  std::vector<Range> snapshot() const;
  // Bytes of [p, p + bytes) inside one allocation (memcpy arguments).
  bool contains(uint64_t p, uint64_t bytes) const;

private:
  mutable std::mutex lock;
  std::map<uint64_t, uint64_t> ranges;
  std::map<uint64_t, void *> owned; // allocation start -> what free() takes
};

// The range of `ranges` (sorted) holding [addr, addr + bytes), or nullptr.
const Range *findRange(const std::vector<Range> &ranges, uint64_t addr, uint64_t bytes);

// "0x... is 4 bytes past the end of a 4096-byte allocation at 0x..." or
// "0x... is in no allocation".
std::string describeAddress(const std::vector<Range> &ranges, uint64_t addr);

} // namespace tk::cuemu
