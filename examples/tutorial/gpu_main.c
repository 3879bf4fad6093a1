/* gpu_main.c - the driver of the GPU lesson (10) of the tutorial.
 *
 *   gpu_main [--check] [M K N]...      (default: 256 256 256)
 *
 * Runs, on CUDA device 0, tkc's automatic cuda schedule of matmul (the op
 * with no cuda kernel: one thread per element of C) and the lesson's two
 * kernels: LESSON_SHARED (f32, shared-memory tiles) and LESSON_TC (f16
 * inputs on tensor cores, f32 sums). Results are compared with a
 * double-precision reference (for the f16 kernel, on the rounded inputs).
 *
 * Where device 0 is tkc's PTX executor (TK_CUDA_DRIVER=.../cuda-emu/
 * libcuda.so.1, docs/gpu.md) the wall time of an interpreter says nothing
 * about a GPU, so the table shows the executor's counters of each launch
 * instead: warp instructions issued, global-memory sectors loaded (and how
 * well the warp's loads were coalesced), shared-memory wavefronts (more
 * than ideal = bank conflicts) and tensor-core instructions. On a real GPU
 * it shows the median time per call. Exit status 1 if a result is wrong,
 * 77 if there is no CUDA driver or device. --check: correctness only. */
#define _POSIX_C_SOURCE 200809L
#include "auto.h"   /* int matmul(const float *A, const float *B, float *C, M, K, N, void *stream) */
#include "lesson.h" /* the lesson's kernels, same signature (f16 inputs as uint16_t for LESSON_TC) */
#include "tk_cuda_emu.h"
#include "tkrt_cuda.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(LESSON_SHARED) || !defined(LESSON_TC)
#error "compile with -DLESSON_SHARED=<f32 kernel> -DLESSON_TC=<f16 kernel>"
#endif
#define TUT_STR2(x) #x
#define TUT_STR(x) TUT_STR2(x)

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static float rnd(void) { /* uniform in [-1, 1): xorshift64 */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* x rounded to the nearest f16 (ties to even), as bits; *value gets the
 * rounded number. |x| < 1 here, so no overflow to handle. */
static uint16_t to_f16(float x, double *value) {
  double a = fabs((double)x);
  uint16_t sign = x < 0 ? 0x8000u : 0;
  if (a < 0x1p-14) { /* subnormal: multiples of 2^-24 */
    double m = nearbyint(a * 0x1p24);
    *value = (sign ? -m : m) * 0x1p-24;
    return (uint16_t)(sign | (uint16_t)m); /* m = 1024 is the smallest normal's bits */
  }
  int e = ilogb(a);
  double r = nearbyint(ldexp(a, 10 - e)) * ldexp(1.0, e - 10); /* 11 significant bits */
  e = ilogb(r);                                                /* rounding may carry into the next binade */
  *value = sign ? -r : r;
  return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)(ldexp(r, 10 - e) - 1024.0));
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *device_copy(const void *host, size_t bytes) {
  void *d = NULL;
  if (tkrt_cuda_alloc(&d, (int64_t)bytes, NULL) != 0 || tkrt_cuda_memcpy_to_device(d, host, bytes) != 0) {
    fprintf(stderr, "device allocation or copy failed\n");
    exit(1);
  }
  return d;
}

/* The executor's counters of the last launch, or NULL on a real driver. */
typedef int (*stats_fn)(tk_cuda_emu_stats *);
static stats_fn executor_stats(void) {
  const char *path = getenv("TK_CUDA_DRIVER");
  void *lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return NULL;
  stats_fn f;
  *(void **)&f = dlsym(lib, "tk_cuda_emu_last_stats"); /* POSIX's way to get a function from dlsym */
  return f;
}

enum { AUTO, SHARED, TC };
static const char *names[] = {"automatic schedule (no kernel)", "lesson kernel " TUT_STR(LESSON_SHARED),
                              "lesson kernel " TUT_STR(LESSON_TC) " (f16 in)"};

static int call(int which, void *dA, void *dB, void *dAh, void *dBh, void *dC, int64_t M, int64_t K, int64_t N) {
  switch (which) {
  case AUTO: return matmul(dA, dB, dC, M, K, N, NULL);
  case SHARED: return LESSON_SHARED(dA, dB, dC, M, K, N, NULL);
  default: return LESSON_TC(dAh, dBh, dC, M, K, N, NULL);
  }
}

static int run_shape(int64_t M, int64_t K, int64_t N, int check_only, stats_fn stats) {
  size_t na = (size_t)(M * K), nb = (size_t)(K * N), nc = (size_t)(M * N);
  float *A = malloc(na * 4 + 4), *B = malloc(nb * 4 + 4), *C = malloc(nc * 4 + 4);
  uint16_t *Ah = malloc(na * 2 + 2), *Bh = malloc(nb * 2 + 2);
  double *a16 = malloc(na * 8 + 8), *b16 = malloc(nb * 8 + 8);
  double *want = calloc(nc + 1, 8), *want16 = calloc(nc + 1, 8);
  if (!A || !B || !C || !Ah || !Bh || !a16 || !b16 || !want || !want16) return 1;
  for (size_t i = 0; i < na; ++i) Ah[i] = to_f16(A[i] = rnd(), &a16[i]);
  for (size_t i = 0; i < nb; ++i) Bh[i] = to_f16(B[i] = rnd(), &b16[i]);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) {
        want[i * N + j] += (double)A[i * K + k] * B[k * N + j];
        want16[i * N + j] += a16[i * K + k] * b16[k * N + j];
      }
  void *dA = device_copy(A, na * 4), *dB = device_copy(B, nb * 4), *dAh = device_copy(Ah, na * 2),
       *dBh = device_copy(Bh, nb * 2), *dC = NULL;
  if (tkrt_cuda_alloc(&dC, (int64_t)(nc * 4), NULL) != 0) return 1;

  printf("matmul %lld x %lld x %lld (M x K x N) on %s\n", (long long)M, (long long)K, (long long)N,
         stats ? "the PTX executor (counters of each launch; no GPU timing)" : "CUDA device 0");
  if (stats && !check_only)
    printf("  %-36s %9s %12s %13s %18s %6s\n", "", "max|err|", "warp instrs", "load sectors", "shared wavefronts",
           "mma");
  else if (!check_only)
    printf("  %-36s %9s %10s\n", "", "max|err|", "ms/call");
  int bad = 0;
  double base = 0;
  for (int w = AUTO; w <= TC; ++w) {
    for (size_t i = 0; i < nc; ++i) C[i] = NAN;
    tkrt_cuda_memcpy_to_device(dC, C, nc * 4);
    int s = call(w, dA, dB, dAh, dBh, dC, M, K, N);
    if (s == 0) s = tkrt_cuda_synchronize(NULL);
    if (s == 0) s = tkrt_cuda_memcpy_to_host(C, dC, nc * 4);
    double err = 0;
    const double *ref = w == TC ? want16 : want;
    for (size_t i = 0; i < nc; ++i) {
      double e = fabs((double)C[i] - ref[i]);
      if (!(e <= err)) err = e;
    }
    int ok = s == 0 && err <= 1e-5 * (double)K + 1e-5;
    bad |= !ok;
    if (s != 0) {
      printf("  %-36s FAILED: status %d\n", names[w], s);
      continue;
    }
    tk_cuda_emu_stats st;
    if (check_only || M * N == 0) {
      printf("  %-36s %9.2e %s\n", names[w], err, ok ? "ok" : "WRONG");
    } else if (stats && stats(&st) == 0) {
      /* Shared wavefronts over the conflict-free count: 1.00 = no bank conflicts. */
      double ways = st.shared_ideal_wavefronts ? (double)st.shared_wavefronts / st.shared_ideal_wavefronts : 1.0;
      if (w == AUTO) base = (double)st.warp_instructions;
      printf("  %-36s %9.2e %12llu %13llu %9llu (x%.2f) %6llu  %s\n", names[w], err,
             (unsigned long long)st.warp_instructions, (unsigned long long)st.global_load_sectors,
             (unsigned long long)st.shared_wavefronts, ways,
             (unsigned long long)(st.by_kind[TK_EMU_TENSOR] / 32), ok ? "ok" : "WRONG");
      if (w != AUTO && base > 0)
        printf("  %-36s %9s %11.1fx fewer warp instructions than the automatic schedule\n", "", "",
               base / (double)st.warp_instructions);
    } else {
      double t[9];
      for (int r = 0; r < 9; ++r) {
        double t0 = now_s();
        call(w, dA, dB, dAh, dBh, dC, M, K, N);
        tkrt_cuda_synchronize(NULL);
        t[r] = now_s() - t0;
      }
      for (int i = 1; i < 9; ++i) /* insertion sort: the median of 9 */
        for (int j = i; j > 0 && t[j] < t[j - 1]; --j) {
          double x = t[j];
          t[j] = t[j - 1];
          t[j - 1] = x;
        }
      printf("  %-36s %9.2e %10.4f  %s\n", names[w], err, t[4] * 1e3, ok ? "ok" : "WRONG");
    }
  }
  tkrt_cuda_free(dA, NULL);
  tkrt_cuda_free(dB, NULL);
  tkrt_cuda_free(dAh, NULL);
  tkrt_cuda_free(dBh, NULL);
  tkrt_cuda_free(dC, NULL);
  free(A), free(B), free(C), free(Ah), free(Bh), free(a16), free(b16), free(want), free(want16);
  return bad;
}

int main(int argc, char **argv) {
  int check_only = 0, a = 1;
  for (; a < argc && strcmp(argv[a], "--check") == 0; ++a) check_only = 1;
  if ((argc - a) % 3 != 0) {
    fprintf(stderr, "usage: %s [--check] [M K N]...\n", argv[0]);
    return 2;
  }
  int s = tkrt_cuda_init();
  if (s != 0) {
    printf("SKIP: no CUDA driver or device (tkrt_cuda_init returned %d); set TK_CUDA_DRIVER to tkc's PTX executor\n",
           s);
    return 77;
  }
  stats_fn stats = executor_stats();
  int bad = 0;
  if (a == argc) bad |= run_shape(256, 256, 256, check_only, stats);
  for (; a + 2 < argc; a += 3) bad |= run_shape(atoll(argv[a]), atoll(argv[a + 1]), atoll(argv[a + 2]), check_only, stats);
  if (bad) printf("some results are WRONG\n");
  return bad ? 1 : 0;
}
