/* tkrt_cuda: the CUDA launcher that objects compiled by tkc for cuda
 * targets call (libtkrt_cuda.a; docs/abi.md, docs/gpu.md). It loads the
 * CUDA driver at run time (dlopen("libcuda.so.1"), or the path in the
 * TK_CUDA_DRIVER environment variable), so programs link and start on
 * machines without a GPU and get a status code instead.
 *
 * Every function returns a status: 0 or one of the TKRT_CUDA_* codes below
 * (the same numbers as the TK_STATUS_* codes of generated headers). Device
 * 0's primary context is used, made current on the calling thread. */
#ifndef TKRT_CUDA_H
#define TKRT_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TKRT_CUDA_OK 0
#define TKRT_CUDA_OUT_OF_MEMORY 3    /* device memory allocation failed */
#define TKRT_CUDA_NO_DRIVER 4        /* libcuda.so.1 missing, incomplete or too old */
#define TKRT_CUDA_NO_DEVICE 5        /* driver present, but no usable device 0 */
#define TKRT_CUDA_MODULE_FAILED 6    /* the driver rejected the PTX (e.g. too old for its ISA version) */
#define TKRT_CUDA_LAUNCH_FAILED 7    /* cuLaunchKernel or a copy/synchronize failed */

/* Initializes the driver, device 0 and its primary context (once per
 * process) and makes the context current on this thread. */
int tkrt_cuda_init(void);

/* Used by generated code. Loads `ptx` into *module_cache on first use and
 * `kernel` into *function_cache (both start as NULL; one pair of cache
 * slots per PTX module / kernel in the generated object, filled at most
 * once even under concurrent calls), then launches `grid` blocks of
 * `block_threads` threads on `stream` (a CUstream; NULL = the default
 * stream) with kernel parameters `args` (cuLaunchKernel's kernelParams)
 * and `dynamic_shared_bytes` of dynamic shared memory per block (above
 * 48 KiB the kernel is first allowed that much with cuFuncSetAttribute).
 * grid <= 0 launches nothing. Up to 2^31 - 1 blocks are a 1-D grid; more
 * become gridDim.y (and z) rows of 2^31 - 1 blocks, up to 65535 each, which
 * the kernel linearizes (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y *
 * blockIdx.z)) and bounds by its own block count. */
int tkrt_cuda_launch_kernel(void **module_cache, const char *ptx, void **function_cache, const char *kernel,
                            int64_t grid, int32_t block_threads, int32_t dynamic_shared_bytes, void **args,
                            void *stream);

/* Stream-ordered device memory (cuMemAllocAsync / cuMemFreeAsync), used
 * by generated code for intermediate tensors; bytes <= 0 allocates 1 byte. */
int tkrt_cuda_alloc(void **ptr, int64_t bytes, void *stream);
int tkrt_cuda_free(void *ptr, void *stream);

/* Synchronous helpers for applications and tests. */
int tkrt_cuda_memcpy_to_device(void *dst, const void *src, size_t bytes);
int tkrt_cuda_memcpy_to_host(void *dst, const void *src, size_t bytes);
int tkrt_cuda_synchronize(void *stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TKRT_CUDA_H */
