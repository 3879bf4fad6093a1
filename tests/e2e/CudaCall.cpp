#include "tests/e2e/CudaCall.h"

#include <fmt/format.h>

#include <vector>

namespace tk::e2e {

namespace {

// Device buffers of one call, freed (stream-ordered, on the null stream)
// when the call is over, whichever way it ends.
class DeviceAllocations {
public:
  explicit DeviceAllocations(int (*release)(void *, void *)) : release_(release) {}
  ~DeviceAllocations() {
    for (void *p : owned_) release_(p, nullptr);
  }
  DeviceAllocations(const DeviceAllocations &) = delete;
  DeviceAllocations &operator=(const DeviceAllocations &) = delete;
  void add(void *p) { owned_.push_back(p); }

private:
  int (*release_)(void *, void *);
  std::vector<void *> owned_;
};

template <typename F> bool lookUp(const NativeLibrary &lib, const char *name, F *&slot, std::string *missing) {
  slot = reinterpret_cast<F *>(lib.symbol(name));
  if (!slot) *missing += std::string(missing->empty() ? "" : ", ") + name;
  return slot != nullptr;
}

} // namespace

std::unique_ptr<CudaDevice> CudaDevice::bind(const NativeLibrary &lib, std::string *error) {
  std::unique_ptr<CudaDevice> d(new CudaDevice);
  std::string missing;
  lookUp(lib, "tkrt_cuda_alloc", d->alloc_, &missing);
  lookUp(lib, "tkrt_cuda_free", d->free_, &missing);
  lookUp(lib, "tkrt_cuda_memcpy_to_device", d->toDevice_, &missing);
  lookUp(lib, "tkrt_cuda_memcpy_to_host", d->toHost_, &missing);
  lookUp(lib, "tkrt_cuda_synchronize", d->synchronize_, &missing);
  if (missing.empty()) return d;
  *error = fmt::format("the compiled library does not export {} (not linked with libtkrt_cuda.a?)\n", missing);
  return nullptr;
}

CallResult CudaDevice::call(void *fn, const ir::Op &op, std::map<std::string, TensorBuffer *> &buffers,
                                  const ir::InterpArgs &args) const {
  DeviceAllocations owned(free_);
  TensorAddresses device;
  for (auto &[name, host] : buffers) {
    device[name] = nullptr;
    if (!host) continue;
    void *p = nullptr;
    if (int st = alloc_(&p, static_cast<int64_t>(host->bytes()), nullptr))
      return {st, fmt::format("allocating device memory for `{}`", name)};
    owned.add(p);
    device[name] = p;
    // Outputs too: their NaN fill shows which elements a kernel never wrote.
    if (int st = toDevice_(p, host->data(), host->bytes()))
      return {st, fmt::format("copying `{}` to the device", name)};
  }
  int status = callExport(fn, op, device, args, /*cudaStream=*/true);
  // The call only enqueues the kernels; a kernel that fails (on the
  // executor: out of bounds, a race, a bad mask) is reported here. Waiting
  // also after a failed call keeps the frees behind any kernel it launched.
  if (int st = synchronize_(nullptr); st && status == 0) return {st, "synchronizing after the call"};
  if (status != 0) return {status, ""};
  for (auto &[name, host] : buffers) {
    if (!host) continue;
    if (int st = toHost_(host->data(), device[name], host->bytes()))
      return {st, fmt::format("copying `{}` back to the host", name)};
  }
  return {0, ""};
}

} // namespace tk::e2e
