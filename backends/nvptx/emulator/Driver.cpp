// Driver: the CUDA driver API (cuda.h's signatures) over the executor, so
// that this library, installed as libcuda.so.1, runs any program that
// reaches the driver through dlopen or links it. One context, one device,
// synchronous streams: every call has finished when it returns. A failed
// launch returns its CUresult and is also reported, once, by the next
// synchronize call, with its message on stderr and in
// tk_cuda_emu_last_error().
#include "DriverState.h"
#include "Launch.h"
#include "PtxParser.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

using namespace tk::cuemu;

namespace tk::cuemu {

State &state() {
  static State s;
  return s;
}

CUresult fail(CUresult code, const std::string &message) {
  State &s = state();
  {
    std::lock_guard<std::mutex> g(s.lock);
    s.lastError = message;
  }
  fmt::print(stderr, "tk-cuda-emu: {}\n", message);
  return code;
}

} // namespace tk::cuemu

namespace {
int context = 1; // the one context's handle points here

// Appends one launch record to `path` (TK_CUDA_EMU_STATS=FILE); a file that
// cannot be written is said once and the records are dropped.
void appendRecord(const std::string &path, const std::string &record) {
  static bool warned = false;
  if (std::FILE *f = std::fopen(path.c_str(), "a")) {
    std::fputs(record.c_str(), f);
    std::fclose(f);
  } else if (!warned) {
    warned = true;
    fmt::print(stderr, "tk-cuda-emu: cannot append launch counters to '{}' (TK_CUDA_EMU_STATS)\n", path);
  }
}
} // namespace

extern "C" {

const char *tk_cuda_emu_last_error(void) {
  static thread_local std::string copy;
  State &s = state();
  std::lock_guard<std::mutex> g(s.lock);
  copy = s.lastError;
  return copy.c_str();
}

int tk_cuda_emu_last_stats(tk_cuda_emu_stats *out) {
  State &s = state();
  std::lock_guard<std::mutex> g(s.lock);
  if (!s.haveStats) return -1;
  *out = s.lastStats;
  return 0;
}

CUresult CUDAAPI cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  State &s = state();
  std::lock_guard<std::mutex> g(s.lock);
  const char *st = std::getenv("TK_CUDA_EMU_STATS"), *ck = std::getenv("TK_CUDA_EMU_CHECKS"),
             *th = std::getenv("TK_CUDA_EMU_THREADS"), *wd = std::getenv("TK_CUDA_EMU_WATCHDOG");
  s.stats = st && std::strcmp(st, "0") != 0 && *st;
  s.statsFile = s.stats && std::strcmp(st, "1") != 0 ? st : "";
  s.checks = !(ck && std::strcmp(ck, "0") == 0);
  s.threads = th && std::atoi(th) > 0 ? std::atoi(th) : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (wd && std::strtoull(wd, nullptr, 10) > 0) s.watchdog = std::strtoull(wd, nullptr, 10);
  s.initialized = true;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int *version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *count) {
  TK_EMU_REQUIRE_INIT();
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  TK_EMU_REQUIRE_INIT();
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev) {
  TK_EMU_REQUIRE_INIT();
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(name, static_cast<size_t>(len), "%s", spec::kName);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice dev) {
  TK_EMU_REQUIRE_INIT();
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = size_t{16} << 30; // what the executor lets a program assume; allocations are host memory
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *value, CUdevice_attribute attrib, CUdevice dev) {
  TK_EMU_REQUIRE_INIT();
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  switch (attrib) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = spec::kMaxThreadsPerBlock; break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *value = 1024; break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *value = 64; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 0x7fffffff; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *value = 65535; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = spec::kSharedDefaultPerBlock; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = spec::kSharedOptinPerBlock; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *value = spec::kSharedPerSm; break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = spec::kSms; break;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
    *value = spec::kRegistersPerSm; break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *value = spec::kMaxThreadsPerSm; break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: *value = spec::kMaxBlocksPerSm; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = spec::kCcMajor; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = spec::kCcMinor; break;
  case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: *value = 1; break;
  default: *value = 0; break; // features the executor does not model
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
  TK_EMU_REQUIRE_INIT();
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  *ctx = reinterpret_cast<CUcontext>(&context);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) { return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  TK_EMU_REQUIRE_INIT();
  return !ctx || ctx == reinterpret_cast<CUcontext>(&context) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *ctx) {
  TK_EMU_REQUIRE_INIT();
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  *ctx = reinterpret_cast<CUcontext>(&context);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSynchronize(void) {
  TK_EMU_REQUIRE_INIT();
  State &s = state();
  std::lock_guard<std::mutex> g(s.lock);
  int p = s.pending;
  s.pending = 0;
  return static_cast<CUresult>(p);
}

CUresult CUDAAPI cuStreamSynchronize(CUstream) { return cuCtxSynchronize(); }

CUresult CUDAAPI cuStreamCreate(CUstream *stream, unsigned int) {
  TK_EMU_REQUIRE_INIT();
  if (!stream) return CUDA_ERROR_INVALID_VALUE;
  *stream = reinterpret_cast<CUstream>(new int(0));
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamDestroy(CUstream stream) {
  delete reinterpret_cast<int *>(stream);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image) {
  TK_EMU_REQUIRE_INIT();
  if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
  auto m = std::make_unique<ModuleObj>();
  std::string error;
  if (!parseModule(static_cast<const char *>(image), &m->module, &error))
    return fail(CUDA_ERROR_INVALID_PTX, "cannot load the PTX module: " + error);
  for (auto &[name, k] : m->module.kernels) m->functions[name].kernel = &k;
  for (auto &g : m->module.globals) state().memory.addRange(reinterpret_cast<uint64_t>(g.data()), g.size() - 16);
  *module = reinterpret_cast<CUmodule>(m.release());
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int, CUjit_option *, void **) {
  return cuModuleLoadData(module, image);
}

CUresult CUDAAPI cuModuleUnload(CUmodule module) {
  auto *m = reinterpret_cast<ModuleObj *>(module);
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  for (auto &g : m->module.globals) state().memory.removeRange(reinterpret_cast<uint64_t>(g.data()));
  delete m;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *fn, CUmodule module, const char *name) {
  TK_EMU_REQUIRE_INIT();
  auto *m = reinterpret_cast<ModuleObj *>(module);
  if (!fn || !m || !name) return CUDA_ERROR_INVALID_VALUE;
  auto it = m->functions.find(name);
  if (it == m->functions.end()) return fail(CUDA_ERROR_NOT_FOUND, fmt::format("no kernel '{}' in the module", name));
  *fn = reinterpret_cast<CUfunction>(&it->second);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction fn, CUfunction_attribute attrib, int value) {
  auto *f = reinterpret_cast<Function *>(fn);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    if (value < 0 || value + static_cast<int>(f->kernel->staticShared) > spec::kSharedOptinPerBlock)
      return CUDA_ERROR_INVALID_VALUE;
    f->maxDynamicShared = value;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetAttribute(int *value, CUfunction_attribute attrib, CUfunction fn) {
  auto *f = reinterpret_cast<Function *>(fn);
  if (!f || !value) return CUDA_ERROR_INVALID_VALUE;
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = static_cast<int>(std::min<uint32_t>(f->kernel->maxThreads, 1024)); break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = static_cast<int>(f->kernel->staticShared); break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = static_cast<int>(f->kernel->localBytes); break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = static_cast<int>(f->kernel->liveRegs); break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = f->maxDynamicShared; break;
  default: *value = 0; break;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                unsigned bz, unsigned sharedBytes, CUstream, void **params, void **extra) {
  TK_EMU_REQUIRE_INIT();
  auto *f = reinterpret_cast<Function *>(fn);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  const Kernel &k = *f->kernel;
  uint64_t threads = static_cast<uint64_t>(bx) * by * bz;
  if (!gx || !gy || !gz || !bx || !by || !bz || gx > 0x7fffffffu || gy > 65535 || gz > 65535 || bx > 1024 ||
      by > 1024 || bz > 64 || threads > static_cast<uint64_t>(spec::kMaxThreadsPerBlock) || threads > k.maxThreads)
    return fail(CUDA_ERROR_INVALID_VALUE,
                fmt::format("kernel '{}': launch grid ({},{},{}) block ({},{},{}) exceeds the device's limits{}", k.name,
                            gx, gy, gz, bx, by, bz, threads > k.maxThreads ? fmt::format(" (.maxntid {})", k.maxThreads) : ""));
  if (static_cast<int>(sharedBytes) > f->maxDynamicShared)
    return fail(CUDA_ERROR_INVALID_VALUE,
                fmt::format("kernel '{}': {} bytes of dynamic shared memory, more than the {} allowed (raise it with "
                            "cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES))",
                            k.name, sharedBytes, f->maxDynamicShared));
  State &s = state();
  LaunchState L;
  L.kernel = &k;
  L.grid[0] = gx, L.grid[1] = gy, L.grid[2] = gz;
  L.block[0] = bx, L.block[1] = by, L.block[2] = bz;
  L.dynamicShared = sharedBytes;
  L.checks = s.checks;
  L.watchdog = s.watchdog;
  L.params.assign(k.paramBytes, 0);
  if (params) {
    for (size_t i = 0; i < k.params.size(); ++i) std::memcpy(L.params.data() + k.params[i].offset, params[i], k.params[i].size);
  } else if (extra) {
    void *buffer = nullptr;
    size_t size = 0;
    for (void **e = extra; *e != CU_LAUNCH_PARAM_END; e += 2) {
      if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = e[1];
      else if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE) size = *static_cast<size_t *>(e[1]);
    }
    if (!buffer) return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(L.params.data(), buffer, std::min<size_t>(size, L.params.size()));
  } else if (!k.params.empty()) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  L.ranges = s.memory.snapshot();
  tk_cuda_emu_stats stats;
  int code = runGrid(L, s.threads, &stats);
  {
    std::lock_guard<std::mutex> g(s.lock);
    s.lastStats = stats;
    s.haveStats = true;
    if (code) s.pending = code;
    if (!s.statsFile.empty()) appendRecord(s.statsFile, statsRecord(stats));
  }
  if (s.stats && s.statsFile.empty()) printStats(stats);
  return code ? fail(static_cast<CUresult>(code), L.error) : CUDA_SUCCESS;
}

} // extern "C"
