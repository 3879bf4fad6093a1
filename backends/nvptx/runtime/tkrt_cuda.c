/* The CUDA launcher (tkrt_cuda.h). The driver API is reached only through
 * dlopen/dlsym, with the few types and entry points it needs declared
 * here, so this library builds without the CUDA toolkit and the programs
 * using it start without a driver. */
#define _GNU_SOURCE
#include "tkrt_cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#define TKRT_API __attribute__((visibility("default")))

typedef int CUresult; /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream;
typedef unsigned long long CUdeviceptr;

enum { CUDA_ERROR_OUT_OF_MEMORY = 2, CUDA_ERROR_NO_DEVICE = 100 };
enum { CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 };
/* Shared memory a kernel may use without opting in (cuFuncSetAttribute). */
enum { DEFAULT_SHARED_BYTES = 48 * 1024 };

static struct {
  CUresult (*init)(unsigned);
  CUresult (*deviceGetCount)(int *);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*ctxSetCurrent)(CUcontext);
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           CUstream, void **, void **);
  CUresult (*funcSetAttribute)(CUfunction, int, int);
  CUresult (*memAllocAsync)(CUdeviceptr *, size_t, CUstream);
  CUresult (*memFreeAsync)(CUdeviceptr, CUstream);
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*streamSynchronize)(CUstream);
  CUcontext context;
  int status; /* of initialization */
} cu;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static int load_driver(void) {
  const char *path = getenv("TK_CUDA_DRIVER");
  void *lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return TKRT_CUDA_NO_DRIVER;
  struct {
    void **slot;
    const char *name;
  } syms[] = {{(void **)&cu.init, "cuInit"},
              {(void **)&cu.deviceGetCount, "cuDeviceGetCount"},
              {(void **)&cu.deviceGet, "cuDeviceGet"},
              {(void **)&cu.primaryCtxRetain, "cuDevicePrimaryCtxRetain"},
              {(void **)&cu.ctxSetCurrent, "cuCtxSetCurrent"},
              {(void **)&cu.moduleLoadData, "cuModuleLoadData"},
              {(void **)&cu.moduleGetFunction, "cuModuleGetFunction"},
              {(void **)&cu.launchKernel, "cuLaunchKernel"},
              {(void **)&cu.funcSetAttribute, "cuFuncSetAttribute"},
              {(void **)&cu.memAllocAsync, "cuMemAllocAsync"},
              {(void **)&cu.memFreeAsync, "cuMemFreeAsync"},
              {(void **)&cu.memcpyHtoD, "cuMemcpyHtoD_v2"},
              {(void **)&cu.memcpyDtoH, "cuMemcpyDtoH_v2"},
              {(void **)&cu.streamSynchronize, "cuStreamSynchronize"}};
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; ++i) {
    *syms[i].slot = dlsym(lib, syms[i].name);
    /* A driver without cuMemAllocAsync predates CUDA 11.2: too old. */
    if (!*syms[i].slot) return TKRT_CUDA_NO_DRIVER;
  }
  CUresult r = cu.init(0);
  if (r == CUDA_ERROR_NO_DEVICE) return TKRT_CUDA_NO_DEVICE;
  /* Other cuInit failures (no kernel module, stub library, driver older
   * than the library) all mean there is no working driver. */
  if (r != 0) return TKRT_CUDA_NO_DRIVER;
  int count = 0;
  CUdevice dev;
  if (cu.deviceGetCount(&count) != 0 || count < 1 || cu.deviceGet(&dev, 0) != 0 ||
      cu.primaryCtxRetain(&cu.context, dev) != 0)
    return TKRT_CUDA_NO_DEVICE;
  return TKRT_CUDA_OK;
}

static void init_driver(void) { cu.status = load_driver(); }

TKRT_API int tkrt_cuda_init(void) {
  pthread_once(&init_once, init_driver);
  if (cu.status != TKRT_CUDA_OK) return cu.status;
  return cu.ctxSetCurrent(cu.context) == 0 ? TKRT_CUDA_OK : TKRT_CUDA_NO_DEVICE;
}

/* Fills *cache once: `load` runs under the lock only while the slot is
 * empty, and the slot is published with release order so a thread that
 * sees it non-NULL also sees the loaded object. */
static int cached(void **cache, int (*load)(void **out, const void *a, const void *b), const void *a, const void *b) {
  if (__atomic_load_n(cache, __ATOMIC_ACQUIRE)) return TKRT_CUDA_OK;
  pthread_mutex_lock(&load_lock);
  int status = TKRT_CUDA_OK;
  if (!*cache) {
    void *obj = NULL;
    status = load(&obj, a, b);
    if (status == TKRT_CUDA_OK) __atomic_store_n(cache, obj, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&load_lock);
  return status;
}

static int load_module(void **out, const void *ptx, const void *unused) {
  (void)unused;
  return cu.moduleLoadData((CUmodule *)out, ptx) == 0 ? TKRT_CUDA_OK : TKRT_CUDA_MODULE_FAILED;
}

static int load_function(void **out, const void *module, const void *name) {
  return cu.moduleGetFunction((CUfunction *)out, (CUmodule)module, (const char *)name) == 0 ? TKRT_CUDA_OK
                                                                                             : TKRT_CUDA_MODULE_FAILED;
}

TKRT_API int tkrt_cuda_launch_kernel(void **module_cache, const char *ptx, void **function_cache, const char *kernel,
                                     int64_t grid, int32_t block_threads, int32_t dynamic_shared_bytes, void **args,
                                     void *stream) {
  int status = tkrt_cuda_init();
  if (status != TKRT_CUDA_OK) return status;
  if (grid <= 0) return TKRT_CUDA_OK;
  if (block_threads < 1 || block_threads > 1024 || dynamic_shared_bytes < 0) return TKRT_CUDA_LAUNCH_FAILED;
  /* gridDim.x holds up to 2^31 - 1 blocks, y and z up to 65535 each. */
  const int64_t max_x = 0x7fffffff, max_yz = 65535;
  int64_t gx = grid < max_x ? grid : max_x, rows = (grid + gx - 1) / gx;
  int64_t gy = rows < max_yz ? rows : max_yz, gz = (rows + gy - 1) / gy;
  if (gz > max_yz) return TKRT_CUDA_LAUNCH_FAILED;
  if ((status = cached(module_cache, load_module, ptx, NULL)) != TKRT_CUDA_OK) return status;
  if ((status = cached(function_cache, load_function, *module_cache, kernel)) != TKRT_CUDA_OK) return status;
  CUfunction f = (CUfunction)*function_cache;
  /* Idempotent and cheap; setting it on every launch needs no extra cache. */
  if (dynamic_shared_bytes > DEFAULT_SHARED_BYTES &&
      cu.funcSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic_shared_bytes) != 0)
    return TKRT_CUDA_LAUNCH_FAILED;
  CUresult r = cu.launchKernel(f, (unsigned)gx, (unsigned)gy, (unsigned)gz, (unsigned)block_threads, 1, 1,
                               (unsigned)dynamic_shared_bytes, (CUstream)stream, args, NULL);
  return r == 0 ? TKRT_CUDA_OK : TKRT_CUDA_LAUNCH_FAILED;
}

TKRT_API int tkrt_cuda_alloc(void **ptr, int64_t bytes, void *stream) {
  int status = tkrt_cuda_init();
  if (status != TKRT_CUDA_OK) return status;
  CUdeviceptr p = 0;
  CUresult r = cu.memAllocAsync(&p, bytes > 0 ? (size_t)bytes : 1, (CUstream)stream);
  if (r != 0) return r == CUDA_ERROR_OUT_OF_MEMORY ? TKRT_CUDA_OUT_OF_MEMORY : TKRT_CUDA_LAUNCH_FAILED;
  *ptr = (void *)(uintptr_t)p;
  return TKRT_CUDA_OK;
}

TKRT_API int tkrt_cuda_free(void *ptr, void *stream) {
  int status = tkrt_cuda_init();
  if (status != TKRT_CUDA_OK) return status;
  return cu.memFreeAsync((CUdeviceptr)(uintptr_t)ptr, (CUstream)stream) == 0 ? TKRT_CUDA_OK : TKRT_CUDA_LAUNCH_FAILED;
}

TKRT_API int tkrt_cuda_memcpy_to_device(void *dst, const void *src, size_t bytes) {
  int status = tkrt_cuda_init();
  if (status != TKRT_CUDA_OK) return status;
  return cu.memcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, bytes) == 0 ? TKRT_CUDA_OK : TKRT_CUDA_LAUNCH_FAILED;
}

TKRT_API int tkrt_cuda_memcpy_to_host(void *dst, const void *src, size_t bytes) {
  int status = tkrt_cuda_init();
  if (status != TKRT_CUDA_OK) return status;
  return cu.memcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, bytes) == 0 ? TKRT_CUDA_OK : TKRT_CUDA_LAUNCH_FAILED;
}

TKRT_API int tkrt_cuda_synchronize(void *stream) {
  int status = tkrt_cuda_init();
  if (status != TKRT_CUDA_OK) return status;
  return cu.streamSynchronize((CUstream)stream) == 0 ? TKRT_CUDA_OK : TKRT_CUDA_LAUNCH_FAILED;
}
