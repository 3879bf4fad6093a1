// DriverMemory: the driver API's memory calls (allocation, copies, memset
// over DeviceMemory, each range checked against the allocations) and its
// error names and strings.
#include "DriverState.h"

#include <fmt/format.h>

#include <cstring>

using namespace tk::cuemu;

extern "C" {

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *p, size_t bytes) {
  TK_EMU_REQUIRE_INIT();
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  void *m = state().memory.allocate(bytes);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = reinterpret_cast<CUdeviceptr>(m);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *p, size_t bytes, CUstream) { return cuMemAlloc(p, bytes); }

CUresult CUDAAPI cuMemFree(CUdeviceptr p) {
  TK_EMU_REQUIRE_INIT();
  if (!p) return CUDA_SUCCESS;
  return state().memory.release(reinterpret_cast<void *>(p)) ? CUDA_SUCCESS
                                                             : fail(CUDA_ERROR_INVALID_VALUE, fmt::format("cuMemFree of {:#x}, which is not an allocation", p));
}

CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr p, CUstream) { return cuMemFree(p); }

namespace {
CUresult checkRange(const char *what, CUdeviceptr p, size_t bytes) {
  if (bytes == 0 || state().memory.contains(p, bytes)) return CUDA_SUCCESS;
  return fail(CUDA_ERROR_INVALID_VALUE, fmt::format("{} of {} bytes at {:#x}: not inside one device allocation", what, bytes, p));
}
} // namespace

CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  TK_EMU_REQUIRE_INIT();
  if (CUresult r = checkRange("cuMemcpyHtoD", dst, bytes)) return r;
  if (bytes) std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  TK_EMU_REQUIRE_INIT();
  if (CUresult r = checkRange("cuMemcpyDtoH", src, bytes)) return r;
  if (bytes) std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  TK_EMU_REQUIRE_INIT();
  if (CUresult r = checkRange("cuMemcpyDtoD", dst, bytes)) return r;
  if (CUresult r = checkRange("cuMemcpyDtoD", src, bytes)) return r;
  if (bytes) std::memmove(reinterpret_cast<void *>(dst), reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream) { return cuMemcpyHtoD(dst, src, bytes); }
CUresult CUDAAPI cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream) { return cuMemcpyDtoH(dst, src, bytes); }
CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream) { return cuMemcpyDtoD(dst, src, bytes); }

CUresult CUDAAPI cuMemsetD8(CUdeviceptr dst, unsigned char v, size_t n) {
  TK_EMU_REQUIRE_INIT();
  if (CUresult r = checkRange("cuMemsetD8", dst, n)) return r;
  if (n) std::memset(reinterpret_cast<void *>(dst), v, n);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD32(CUdeviceptr dst, unsigned int v, size_t n) {
  TK_EMU_REQUIRE_INIT();
  if (CUresult r = checkRange("cuMemsetD32", dst, n * 4)) return r;
  auto *p = reinterpret_cast<unsigned int *>(dst);
  for (size_t i = 0; i < n; ++i) p[i] = v;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **str) {
  if (!str) return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
  case CUDA_SUCCESS: *str = "CUDA_SUCCESS"; break;
  case CUDA_ERROR_INVALID_VALUE: *str = "CUDA_ERROR_INVALID_VALUE"; break;
  case CUDA_ERROR_OUT_OF_MEMORY: *str = "CUDA_ERROR_OUT_OF_MEMORY"; break;
  case CUDA_ERROR_NOT_INITIALIZED: *str = "CUDA_ERROR_NOT_INITIALIZED"; break;
  case CUDA_ERROR_INVALID_DEVICE: *str = "CUDA_ERROR_INVALID_DEVICE"; break;
  case CUDA_ERROR_INVALID_CONTEXT: *str = "CUDA_ERROR_INVALID_CONTEXT"; break;
  case CUDA_ERROR_INVALID_PTX: *str = "CUDA_ERROR_INVALID_PTX"; break;
  case CUDA_ERROR_INVALID_HANDLE: *str = "CUDA_ERROR_INVALID_HANDLE"; break;
  case CUDA_ERROR_NOT_FOUND: *str = "CUDA_ERROR_NOT_FOUND"; break;
  case CUDA_ERROR_ILLEGAL_ADDRESS: *str = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
  case CUDA_ERROR_ILLEGAL_INSTRUCTION: *str = "CUDA_ERROR_ILLEGAL_INSTRUCTION"; break;
  case CUDA_ERROR_MISALIGNED_ADDRESS: *str = "CUDA_ERROR_MISALIGNED_ADDRESS"; break;
  case CUDA_ERROR_LAUNCH_FAILED: *str = "CUDA_ERROR_LAUNCH_FAILED"; break;
  default: *str = nullptr; return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **str) {
  if (!str) return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
  case CUDA_SUCCESS: *str = "no error"; break;
  case CUDA_ERROR_INVALID_VALUE: *str = "invalid argument"; break;
  case CUDA_ERROR_OUT_OF_MEMORY: *str = "out of memory"; break;
  case CUDA_ERROR_NOT_INITIALIZED: *str = "initialization error"; break;
  case CUDA_ERROR_INVALID_DEVICE: *str = "invalid device ordinal"; break;
  case CUDA_ERROR_INVALID_CONTEXT: *str = "invalid device context"; break;
  case CUDA_ERROR_INVALID_PTX: *str = "a PTX JIT compilation failed"; break;
  case CUDA_ERROR_INVALID_HANDLE: *str = "invalid resource handle"; break;
  case CUDA_ERROR_NOT_FOUND: *str = "named symbol not found"; break;
  case CUDA_ERROR_ILLEGAL_ADDRESS: *str = "an illegal memory access was encountered"; break;
  case CUDA_ERROR_ILLEGAL_INSTRUCTION: *str = "an illegal instruction was encountered"; break;
  case CUDA_ERROR_MISALIGNED_ADDRESS: *str = "misaligned address"; break;
  case CUDA_ERROR_LAUNCH_FAILED: *str = "unspecified launch failure"; break;
  default: *str = nullptr; return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

} // extern "C"
