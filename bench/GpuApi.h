// GpuApi: what tk_gpu_bench needs beyond libtkrt_cuda — CUDA events, a
// device-to-device copy and cuBLAS (SGEMM, bf16 GemmEx) — loaded with
// dlopen like the runtime loads the driver, so the program starts (and
// reports "no CUDA device: skipped") on machines without a GPU driver.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace tkbench {

class GpuApi {
public:
  // Loads the driver entry points (libtkrt_cuda has already initialised the
  // driver and made device 0's primary context current) and cuBLAS from
  // `cublasPath` (TK_CUBLAS overrides it). Returns "" or why it failed.
  std::string load(const std::string &cublasPath);
  ~GpuApi();

  // Median of `reps` timings (milliseconds, CUDA events on the default
  // stream) of `fn`, after `warmup` untimed calls. fn returns a tkc/cuBLAS
  // status; a non-zero one aborts the program with `what`.
  double medianMs(const char *what, int warmup, int reps, const std::function<int()> &fn);

  void copyDeviceToDevice(void *dst, const void *src, size_t bytes);
  // Row-major C[M, N] = A[M, K] * B[K, N] (f32), via the column-major
  // identity C^T = B^T A^T.
  int sgemm(int64_t M, int64_t N, int64_t K, const float *A, const float *B, float *C);
  // The same with bf16 A and B (uint16_t bit patterns) and an f32 C,
  // accumulating in f32 (tensor cores).
  int gemmBf16(int64_t M, int64_t N, int64_t K, const uint16_t *A, const uint16_t *B, float *C);


private:
  void *driver_ = nullptr, *cublas_ = nullptr, *handle_ = nullptr, *start_ = nullptr, *stop_ = nullptr;
  int (*eventCreate_)(void **, unsigned) = nullptr;
  int (*eventRecord_)(void *, void *) = nullptr;
  int (*eventSynchronize_)(void *) = nullptr;
  int (*eventElapsed_)(float *, void *, void *) = nullptr;
  int (*eventDestroy_)(void *) = nullptr;
  int (*memcpyDtoD_)(unsigned long long, unsigned long long, size_t, void *) = nullptr;
  int (*cublasDestroy_)(void *) = nullptr;
  int (*sgemm_)(void *, int, int, int, int, int, const float *, const float *, int, const float *, int, const float *,
                float *, int) = nullptr;
  int (*gemmEx_)(void *, int, int, int, int, int, const void *, const void *, int, int, const void *, int, int,
                 const void *, void *, int, int, int, int) = nullptr;
};

[[noreturn]] void fail(const std::string &what);

} // namespace tkbench
