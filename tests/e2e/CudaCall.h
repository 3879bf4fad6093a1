// CudaCall: calls of an export compiled for a cuda target on host buffers.
// The tensor arguments of such a function are device pointers (docs/abi.md),
// so each host TensorBuffer is mirrored in device memory for the call:
// allocated (tkrt_cuda_alloc), copied in, passed, copied back after the
// stream is synchronized, freed. Copying every buffer back, inputs too,
// lets the caller check outputs and untouched inputs exactly as on the CPU.
//
// The device allocations have exactly the tensors' sizes and no guard
// zones: the PTX executor (TK_CUDA_DRIVER=lib/cuda-emu/libcuda.so.1) checks
// every global access against the allocations and fails the launch with the
// PTX line on stderr, which catches out-of-bounds reads as well as writes.
//
// tkrt_cuda's functions are looked up in the NativeLibrary (linked whole
// into it, NativeOp.h) rather than linked into tk_difftest: the kernels'
// launches and these copies then go through one tkrt_cuda, with one driver
// handle and one context.
#pragma once
#include "tests/e2e/NativeOp.h"

#include <map>
#include <memory>
#include <string>

namespace tk::e2e {

// What a call came to: the export's status or, on the device, the status
// of the step around it that failed (an allocation, a copy, or the
// synchronize that reports a failed kernel), with that step named.
struct CallResult {
  int status = 0;
  std::string failedStep; // empty: `status` is the export's own
};

class CudaDevice {
public:
  // Looks up tkrt_cuda's functions in `lib`; null with *error set when one
  // is missing (a library not built for a cuda target).
  static std::unique_ptr<CudaDevice> bind(const NativeLibrary &lib, std::string *error);

  // Calls `fn` (the ABI of `op`, cuda flavour) on device copies of
  // `buffers` (null entries pass null pointers, nothing is allocated for
  // them) with the null stream, waits for the kernels and copies every
  // buffer back when the call returned 0. Device memory is freed in every
  // case.
  CallResult call(void *fn, const ir::Op &op, std::map<std::string, TensorBuffer *> &buffers,
                        const ir::InterpArgs &args) const;

private:
  // tkrt_cuda.h's signatures.
  int (*alloc_)(void **ptr, int64_t bytes, void *stream) = nullptr;
  int (*free_)(void *ptr, void *stream) = nullptr;
  int (*toDevice_)(void *dst, const void *src, size_t bytes) = nullptr;
  int (*toHost_)(void *dst, const void *src, size_t bytes) = nullptr;
  int (*synchronize_)(void *stream) = nullptr;
};

} // namespace tk::e2e
