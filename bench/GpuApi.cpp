#include "GpuApi.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <vector>

namespace tkbench {

namespace {
// cuBLAS / CUDA enum values (cublas_api.h, library_types.h): declared here
// so the program needs no CUDA header to build and no CUDA library to start.
constexpr int kOpN = 0, kR32F = 0, kR16BF = 14, kCompute32F = 68, kGemmDefault = -1;

template <typename T> void bind(void *lib, const char *name, T &slot, std::string &err) {
  slot = reinterpret_cast<T>(dlsym(lib, name));
  if (!slot && err.empty()) err = std::string("missing symbol ") + name;
}
} // namespace

void fail(const std::string &what) {
  fmt::print(stderr, "tk_gpu_bench: {}\n", what);
  std::exit(1);
}

std::string GpuApi::load(const std::string &cublasPath) {
  const char *drv = std::getenv("TK_CUDA_DRIVER"); // the library tkrt_cuda loaded
  driver_ = dlopen(drv && *drv ? drv : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver_) return "cannot load the CUDA driver";
  std::string err;
  bind(driver_, "cuEventCreate", eventCreate_, err);
  bind(driver_, "cuEventRecord", eventRecord_, err);
  bind(driver_, "cuEventSynchronize", eventSynchronize_, err);
  bind(driver_, "cuEventElapsedTime", eventElapsed_, err);
  bind(driver_, "cuEventDestroy_v2", eventDestroy_, err);
  bind(driver_, "cuMemcpyDtoDAsync_v2", memcpyDtoD_, err);
  if (!err.empty()) return "CUDA driver: " + err;
  if (eventCreate_(&start_, 0) != 0 || eventCreate_(&stop_, 0) != 0) return "cuEventCreate failed";

  const char *env = std::getenv("TK_CUBLAS");
  std::string path = env && *env ? env : cublasPath;
  cublas_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!cublas_) return "cannot load cuBLAS from " + path + " (set TK_CUBLAS): " + dlerror();
  int (*create)(void **) = nullptr;
  bind(cublas_, "cublasCreate_v2", create, err);
  bind(cublas_, "cublasDestroy_v2", cublasDestroy_, err);
  bind(cublas_, "cublasSgemm_v2", sgemm_, err);
  bind(cublas_, "cublasGemmEx", gemmEx_, err);
  if (!err.empty()) return "cuBLAS: " + err;
  if (int s = create(&handle_); s != 0) return fmt::format("cublasCreate failed with status {}", s);
  return "";
}

GpuApi::~GpuApi() {
  if (handle_) cublasDestroy_(handle_);
  if (start_) eventDestroy_(start_);
  if (stop_) eventDestroy_(stop_);
}

double GpuApi::medianMs(const char *what, int warmup, int reps, const std::function<int()> &fn) {
  for (int i = 0; i < warmup; ++i)
    if (int s = fn(); s != 0) fail(fmt::format("{} returned status {}", what, s));
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    eventRecord_(start_, nullptr);
    if (int s = fn(); s != 0) fail(fmt::format("{} returned status {}", what, s));
    eventRecord_(stop_, nullptr);
    if (eventSynchronize_(stop_) != 0) fail(std::string(what) + ": the device reported an error");
    float t = 0;
    eventElapsed_(&t, start_, stop_);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void GpuApi::copyDeviceToDevice(void *dst, const void *src, size_t bytes) {
  if (memcpyDtoD_(reinterpret_cast<uintptr_t>(dst), reinterpret_cast<uintptr_t>(src), bytes, nullptr) != 0)
    fail("cuMemcpyDtoDAsync failed");
}

int GpuApi::sgemm(int64_t M, int64_t N, int64_t K, const float *A, const float *B, float *C) {
  const float one = 1, zero = 0;
  int m = static_cast<int>(M), n = static_cast<int>(N), k = static_cast<int>(K);
  return sgemm_(handle_, kOpN, kOpN, n, m, k, &one, B, n, A, k, &zero, C, n);
}

int GpuApi::gemmBf16(int64_t M, int64_t N, int64_t K, const uint16_t *A, const uint16_t *B, float *C) {
  const float one = 1, zero = 0;
  int m = static_cast<int>(M), n = static_cast<int>(N), k = static_cast<int>(K);
  return gemmEx_(handle_, kOpN, kOpN, n, m, k, &one, B, kR16BF, n, A, kR16BF, k, &zero, C, kR32F, n, kCompute32F,
                 kGemmDefault);
}

} // namespace tkbench
