/* driver_api_run.c: runs the nvcc-compiled kernels of kernels.cu through
 * the CUDA driver API alone and compares them with a host reference.
 *
 *   driver_api_run [--emu] [--only CASE[,CASE...]] KERNELS.ptx
 *
 * Cases: saxpy, reduce, transpose, coalescing, bank_conflicts (run by
 * default), race, oob (run only when named with --only). With --emu the
 * program runs on tkc's PTX executor (backends/nvptx/emulator) and also
 * checks what only the executor has: the counters of tk_cuda_emu_last_stats()
 * (global load efficiency, shared-memory bank conflicts) and the broken
 * kernels, which must fail: reduce_missing_sync with CUDA_ERROR_LAUNCH_FAILED
 * and a message mentioning "race", copy_off_by_one with
 * CUDA_ERROR_ILLEGAL_ADDRESS. A failed kernel leaves a CUDA context unusable
 * (the error is sticky), so each broken kernel runs in a process of its own
 * (--only race, --only oob). Without --emu (a real driver) the counters are
 * not read and the broken kernels are not launched.
 *
 * Prints one line per case and "N failure(s)"; exits 0 only if all pass. */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tk_cuda_emu.h"

/* Weak: with a real libcuda.so.1 these are absent and resolve to NULL. */
#pragma weak tk_cuda_emu_last_stats
#pragma weak tk_cuda_emu_last_error

static int g_emu;        /* --emu */
static int g_failures;
static CUmodule g_module;
static const char *g_only; /* --only list, or NULL */

/* ---------------------------------------------------------------- helpers */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *err_name(CUresult r) {
  const char *s = NULL;
  if (cuGetErrorName(r, &s) != CUDA_SUCCESS || !s)
    return "(unknown CUresult)";
  return s;
}

static const char *err_string(CUresult r) {
  const char *s = NULL;
  if (cuGetErrorString(r, &s) != CUDA_SUCCESS || !s)
    return "(no description)";
  return s;
}

static const char *emu_error(void) {
  if (!g_emu || !tk_cuda_emu_last_error)
    return "";
  const char *s = tk_cuda_emu_last_error();
  return s ? s : "";
}

/* One result line; detail is printed after the case name. */
static void report(int pass, double ms, const char *fmt, ...) {
  va_list ap;
  printf("%s ", pass ? "PASS" : "FAIL");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf(" (%.0f ms)\n", ms);
  fflush(stdout);
  if (!pass)
    g_failures++;
}

/* Fatal driver errors (setup, allocation, copies): print and exit. */
static void check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return;
  printf("FAIL %s: %s (%s) %s\n", what, err_name(r), err_string(r), emu_error());
  printf("%d failure(s)\n", g_failures + 1);
  exit(1);
}

static CUdeviceptr dev_alloc(size_t bytes) {
  CUdeviceptr p = 0;
  check(cuMemAlloc(&p, bytes), "cuMemAlloc");
  return p;
}

static void dev_free(CUdeviceptr p) { check(cuMemFree(p), "cuMemFree"); }

static void upload(CUdeviceptr dst, const void *src, size_t bytes) {
  check(cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

static void download(void *dst, CUdeviceptr src, size_t bytes) {
  check(cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

static CUfunction get_function(const char *name) {
  CUfunction f;
  CUresult r = cuModuleGetFunction(&f, g_module, name);
  if (r != CUDA_SUCCESS) {
    char what[160];
    snprintf(what, sizeof what, "cuModuleGetFunction(%s)", name);
    check(r, what);
  }
  return f;
}

/* Launches and synchronizes; the first error of the two. */
static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by, void **args) {
  CUresult r = cuLaunchKernel(f, gx, gy, 1, bx, by, 1, 0, NULL, args, NULL);
  if (r != CUDA_SUCCESS)
    return r;
  return cuCtxSynchronize();
}

static uint32_t g_rng = 12345u;
static float rnd(void) { /* uniform in [-1, 1) */
  g_rng = g_rng * 1664525u + 1013904223u;
  return (float)((g_rng >> 8) & 0xffffff) / 8388608.0f - 1.0f;
}

static float *host_floats(size_t n) {
  float *p = malloc((n ? n : 1) * sizeof(float));
  if (!p) {
    printf("FAIL out of host memory\n");
    exit(1);
  }
  return p;
}

static unsigned ceil_div(unsigned a, unsigned b) { return (a + b - 1) / b; }

/* The counters of the last launch, which must be of `kernel`; 0 if absent. */
static int last_stats(const char *kernel, tk_cuda_emu_stats *s, char *why, size_t why_size) {
  if (!tk_cuda_emu_last_stats) {
    snprintf(why, why_size, "tk_cuda_emu_last_stats is not in this libcuda.so.1");
    return 0;
  }
  memset(s, 0, sizeof *s);
  if (tk_cuda_emu_last_stats(s) != 0) {
    snprintf(why, why_size, "tk_cuda_emu_last_stats returned -1 after a launch");
    return 0;
  }
  if (strcmp(s->kernel, kernel) != 0) {
    snprintf(why, why_size, "last stats are of kernel '%.100s', not %s", s->kernel, kernel);
    return 0;
  }
  return 1;
}

/* ------------------------------------------------------------------ cases */

static void case_saxpy(void) {
  static const struct { unsigned n, grid, block; } cfg[] = {
      {1, 1, 128},      {2, 1, 32},      {31, 1, 32},       {127, 2, 64},
      {1021, 3, 128},   {4099, 7, 96},   {65537, 13, 128},  {100003, 40, 256},
  };
  CUfunction f = get_function("saxpy_grid_stride");
  for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
    int n = (int)cfg[c].n;
    float a = 1.75f;
    float *x = host_floats(n), *y = host_floats(n), *got = host_floats(n);
    for (int i = 0; i < n; i++) {
      x[i] = rnd();
      y[i] = rnd();
    }
    CUdeviceptr dx = dev_alloc(n * sizeof(float)), dy = dev_alloc(n * sizeof(float));
    upload(dx, x, n * sizeof(float));
    upload(dy, y, n * sizeof(float));
    void *args[] = {&n, &a, &dx, &dy};
    double t0 = now_ms();
    CUresult r = launch(f, cfg[c].grid, 1, cfg[c].block, 1, args);
    double ms = now_ms() - t0;
    if (r != CUDA_SUCCESS) {
      report(0, ms, "saxpy_grid_stride n=%d grid=%u block=%u: %s %s", n, cfg[c].grid, cfg[c].block,
             err_name(r), emu_error());
    } else {
      download(got, dy, n * sizeof(float));
      int bad = -1;
      for (int i = 0; i < n && bad < 0; i++) {
        double ref = (double)a * x[i] + y[i];
        double tol = 1e-6 * (fabs((double)a * x[i]) + fabs((double)y[i])) + 1e-30;
        if (!(fabs(got[i] - ref) <= tol))
          bad = i;
      }
      if (bad < 0)
        report(1, ms, "saxpy_grid_stride n=%d grid=%u block=%u", n, cfg[c].grid, cfg[c].block);
      else
        report(0, ms, "saxpy_grid_stride n=%d grid=%u block=%u: y[%d] = %.9g, expected %.9g", n, cfg[c].grid,
               cfg[c].block, bad, got[bad], (double)a * x[bad] + y[bad]);
    }
    dev_free(dx);
    dev_free(dy);
    free(x);
    free(y);
    free(got);
  }
}

static void case_reduce(void) {
  /* Small integer values: every partial sum is exact in f32, so the result
   * does not depend on the order of the atomic adds. */
  static const struct { unsigned n, block, max_grid; } cfg[] = {
      {1, 256, 16},    {2, 64, 16},      {255, 256, 16},   {256, 256, 16},  {257, 256, 16},
      {1009, 64, 16},  {4099, 1024, 4},  {65521, 256, 16}, {100000, 128, 32},
  };
  CUfunction f = get_function("reduce_sum");
  for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
    int n = (int)cfg[c].n;
    unsigned grid = ceil_div(cfg[c].n, cfg[c].block);
    if (grid > cfg[c].max_grid)
      grid = cfg[c].max_grid;
    float *x = host_floats(n);
    double ref = 0;
    for (int i = 0; i < n; i++) {
      x[i] = (float)((int)((i * 7919u) % 17u) - 5); /* mean 3: |sum| < 2^24 */
      ref += x[i];
    }
    float zero = 0.0f, got = -12345.0f;
    CUdeviceptr dx = dev_alloc(n * sizeof(float)), dout = dev_alloc(sizeof(float));
    upload(dx, x, n * sizeof(float));
    upload(dout, &zero, sizeof zero);
    void *args[] = {&dx, &dout, &n};
    double t0 = now_ms();
    CUresult r = launch(f, grid, 1, cfg[c].block, 1, args);
    double ms = now_ms() - t0;
    if (r != CUDA_SUCCESS) {
      report(0, ms, "reduce_sum n=%d grid=%u block=%u: %s %s", n, grid, cfg[c].block, err_name(r), emu_error());
    } else {
      download(&got, dout, sizeof got);
      report(got == ref, ms, "reduce_sum n=%d grid=%u block=%u: sum %.9g, expected %.9g", n, grid, cfg[c].block,
             got, ref);
    }
    dev_free(dx);
    dev_free(dout);
    free(x);
  }
}

/* Runs one transpose kernel on rows x cols and compares; with stats, leaves
 * the counters of the launch in *s (returns 0 if the run failed). */
static int run_transpose(const char *kernel, int rows, int cols, tk_cuda_emu_stats *s) {
  CUfunction f = get_function(kernel);
  size_t count = (size_t)rows * cols;
  float *in = host_floats(count), *got = host_floats(count);
  for (size_t i = 0; i < count; i++)
    in[i] = rnd();
  CUdeviceptr din = dev_alloc(count * sizeof(float)), dout = dev_alloc(count * sizeof(float));
  upload(din, in, count * sizeof(float));
  void *args[] = {&din, &dout, &rows, &cols};
  unsigned gx = ceil_div((unsigned)cols, 32), gy = ceil_div((unsigned)rows, 32);
  double t0 = now_ms();
  CUresult r = launch(f, gx, gy, 32, 8, args);
  double ms = now_ms() - t0;
  int pass = 0;
  if (r != CUDA_SUCCESS) {
    report(0, ms, "%s %dx%d grid=%ux%u block=32x8: %s %s", kernel, rows, cols, gx, gy, err_name(r), emu_error());
  } else {
    download(got, dout, count * sizeof(float));
    long bad_r = -1, bad_c = -1;
    for (int i = 0; i < rows && bad_r < 0; i++)
      for (int j = 0; j < cols; j++)
        if (got[(size_t)j * rows + i] != in[(size_t)i * cols + j]) {
          bad_r = i;
          bad_c = j;
          break;
        }
    if (bad_r < 0) {
      pass = 1;
      report(1, ms, "%s %dx%d grid=%ux%u block=32x8", kernel, rows, cols, gx, gy);
    } else {
      report(0, ms, "%s %dx%d: out[%ld][%ld] = %.9g, expected in[%ld][%ld] = %.9g", kernel, rows, cols, bad_c, bad_r,
             got[(size_t)bad_c * rows + bad_r], bad_r, bad_c, in[(size_t)bad_r * cols + bad_c]);
    }
  }
  if (pass && s) {
    char why[256];
    if (!last_stats(kernel, s, why, sizeof why)) {
      report(0, 0, "%s %dx%d counters: %s", kernel, rows, cols, why);
      pass = 0;
    }
  }
  dev_free(din);
  dev_free(dout);
  free(in);
  free(got);
  return pass;
}

static void case_transpose(void) {
  static const int sizes[][2] = {{1, 1},   {1, 37},  {37, 1},   {31, 33},  {32, 32},
                                 {64, 64}, {97, 131}, {131, 97}, {257, 129}};
  for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
    run_transpose("transpose_padded", sizes[c][0], sizes[c][1], NULL);
    run_transpose("transpose_unpadded", sizes[c][0], sizes[c][1], NULL);
  }
}

static void case_coalescing(void) {
  if (!g_emu) {
    report(1, 0, "coalescing counters: skipped (needs --emu)");
    return;
  }
  /* n: a multiple of 32, so that every warp is full. */
  const int n = 8192;
  static const struct { const char *kernel; int stride; double load_eff; } cfg[] = {
      {"copy_coalesced", 1, 1.0},
      {"copy_stride32", 32, 0.125},
  };
  for (size_t c = 0; c < 2; c++) {
    CUfunction f = get_function(cfg[c].kernel);
    size_t in_count = (size_t)n * cfg[c].stride;
    float *in = host_floats(in_count), *got = host_floats(n);
    for (size_t i = 0; i < in_count; i++)
      in[i] = rnd();
    CUdeviceptr din = dev_alloc(in_count * sizeof(float)), dout = dev_alloc(n * sizeof(float));
    upload(din, in, in_count * sizeof(float));
    int nn = n;
    void *args[] = {&din, &dout, &nn};
    double t0 = now_ms();
    CUresult r = launch(f, n / 256, 1, 256, 1, args);
    double ms = now_ms() - t0;
    if (r != CUDA_SUCCESS) {
      report(0, ms, "%s n=%d: %s %s", cfg[c].kernel, n, err_name(r), emu_error());
    } else {
      tk_cuda_emu_stats s;
      char why[256];
      int stats_ok = last_stats(cfg[c].kernel, &s, why, sizeof why);
      download(got, dout, n * sizeof(float));
      int bad = -1;
      for (int i = 0; i < n && bad < 0; i++)
        if (got[i] != in[(size_t)i * cfg[c].stride])
          bad = i;
      if (bad >= 0)
        report(0, ms, "%s n=%d: out[%d] = %.9g, expected %.9g", cfg[c].kernel, n, bad, got[bad],
               in[(size_t)bad * cfg[c].stride]);
      else if (!stats_ok)
        report(0, ms, "%s n=%d: %s", cfg[c].kernel, n, why);
      else {
        /* One request per warp; the loads touch n*4*stride/32 sectors
         * (capped at one sector per lane), the stores n*4/32. */
        uint64_t warps = n / 32;
        uint64_t load_sectors = cfg[c].stride == 1 ? (uint64_t)n / 8 : (uint64_t)n;
        double load_eff = s.global_load_sectors ? (double)s.global_load_bytes / (32.0 * s.global_load_sectors) : 0;
        double store_eff =
            s.global_store_sectors ? (double)s.global_store_bytes / (32.0 * s.global_store_sectors) : 0;
        int pass = load_eff == cfg[c].load_eff && store_eff == 1.0 && s.global_load_requests == warps &&
                   s.global_load_sectors == load_sectors && s.global_load_bytes == (uint64_t)n * 4 &&
                   s.global_store_requests == warps && s.global_store_sectors == (uint64_t)n / 8;
        report(pass, ms,
               "%s n=%d: load efficiency %.4f (expected %.4f; requests %llu sectors %llu bytes %llu, expected "
               "%llu %llu %llu), store efficiency %.4f (requests %llu sectors %llu, expected %llu %llu)",
               cfg[c].kernel, n, load_eff, cfg[c].load_eff, (unsigned long long)s.global_load_requests,
               (unsigned long long)s.global_load_sectors, (unsigned long long)s.global_load_bytes,
               (unsigned long long)warps, (unsigned long long)load_sectors, (unsigned long long)n * 4, store_eff,
               (unsigned long long)s.global_store_requests, (unsigned long long)s.global_store_sectors,
               (unsigned long long)warps, (unsigned long long)n / 8);
      }
    }
    dev_free(din);
    dev_free(dout);
    free(in);
    free(got);
  }
}

static void case_bank_conflicts(void) {
  if (!g_emu) {
    report(1, 0, "bank conflict counters: skipped (needs --emu)");
    return;
  }
  /* tile_column_read32/33: 4 blocks of 32x32 threads, each a 32x32 tile. */
  const unsigned blocks = 4, count = blocks * 1024;
  for (int pitch = 32; pitch <= 33; pitch++) {
    char kernel[32];
    snprintf(kernel, sizeof kernel, "tile_column_read%d", pitch);
    CUfunction f = get_function(kernel);
    float *in = host_floats(count), *got = host_floats(count);
    for (unsigned i = 0; i < count; i++)
      in[i] = rnd();
    CUdeviceptr din = dev_alloc(count * sizeof(float)), dout = dev_alloc(count * sizeof(float));
    upload(din, in, count * sizeof(float));
    void *args[] = {&din, &dout};
    double t0 = now_ms();
    CUresult r = launch(f, blocks, 1, 32, 32, args);
    double ms = now_ms() - t0;
    if (r != CUDA_SUCCESS) {
      report(0, ms, "%s: %s %s", kernel, err_name(r), emu_error());
    } else {
      tk_cuda_emu_stats s;
      char why[256];
      int stats_ok = last_stats(kernel, &s, why, sizeof why);
      download(got, dout, count * sizeof(float));
      int bad = -1;
      for (unsigned b = 0; b < blocks && bad < 0; b++)
        for (unsigned i = 0; i < 32 && bad < 0; i++)
          for (unsigned j = 0; j < 32; j++)
            if (got[b * 1024 + i * 32 + j] != in[b * 1024 + j * 32 + i]) {
              bad = (int)(b * 1024 + i * 32 + j);
              break;
            }
      if (bad >= 0)
        report(0, ms, "%s: out[%d] = %.9g, wrong", kernel, bad, got[bad]);
      else if (!stats_ok)
        report(0, ms, "%s: %s", kernel, why);
      else {
        /* 32 warps per block: a conflict-free row store and a column load
         * each, 1 wavefront for the store, `ways` for the load. */
        uint64_t requests = 2ull * 32 * blocks;
        uint32_t ways = pitch == 32 ? 32 : 1;
        uint64_t wavefronts = 32ull * blocks * (1 + ways);
        int pass = s.shared_max_ways == ways && s.shared_requests == requests &&
                   s.shared_ideal_wavefronts == requests && s.shared_wavefronts == wavefronts;
        report(pass, ms,
               "%s: shared max ways %u (expected %u), requests %llu, wavefronts %llu, ideal %llu (expected %llu "
               "%llu %llu)",
               kernel, s.shared_max_ways, ways, (unsigned long long)s.shared_requests,
               (unsigned long long)s.shared_wavefronts, (unsigned long long)s.shared_ideal_wavefronts,
               (unsigned long long)requests, (unsigned long long)wavefronts, (unsigned long long)requests);
      }
    }
    dev_free(din);
    dev_free(dout);
    free(in);
    free(got);
  }
  /* The transposes: the unpadded tile's column reads are 32-way conflicts,
   * the padded tile has none. Full tiles only, so every warp is full. */
  for (int padded = 1; padded >= 0; padded--) {
    const char *kernel = padded ? "transpose_padded" : "transpose_unpadded";
    tk_cuda_emu_stats s;
    double t0 = now_ms();
    if (!run_transpose(kernel, 64, 96, &s))
      continue;
    uint32_t ways = padded ? 1 : 32;
    int pass = s.shared_max_ways == ways &&
               (padded ? s.shared_wavefronts == s.shared_ideal_wavefronts
                       : s.shared_wavefronts > s.shared_ideal_wavefronts);
    report(pass, now_ms() - t0, "%s 64x96 counters: shared max ways %u (expected %u), wavefronts %llu, ideal %llu",
           kernel, s.shared_max_ways, ways, (unsigned long long)s.shared_wavefronts,
           (unsigned long long)s.shared_ideal_wavefronts);
  }
}

/* A broken kernel: runs it (with --emu only) and expects `want`, and, if
 * `needle` is not NULL, the executor's message to contain it. */
static void expect_failure(const char *what, const char *kernel, unsigned grid, unsigned block, int n, CUresult want,
                           const char *needle) {
  if (!g_emu) {
    report(1, 0, "%s (%s): skipped, not launched without --emu", what, kernel);
    return;
  }
  CUfunction f = get_function(kernel);
  float *in = host_floats(n);
  for (int i = 0; i < n; i++)
    in[i] = (float)(i % 13);
  CUdeviceptr din = dev_alloc(n * sizeof(float)), dout = dev_alloc(n * sizeof(float));
  upload(din, in, n * sizeof(float));
  void *args[] = {&din, &dout, &n};
  double t0 = now_ms();
  CUresult r = launch(f, grid, 1, block, 1, args);
  double ms = now_ms() - t0;
  const char *msg = emu_error();
  int pass = r == want && (!needle || strstr(msg, needle));
  report(pass, ms, "%s (%s n=%d grid=%u block=%u): %s, expected %s; message: \"%s\"%s%s%s", what, kernel, n, grid,
         block, err_name(r), err_name(want), msg, needle ? " (must mention \"" : "", needle ? needle : "",
         needle ? "\")" : "");
  /* The context may be unusable now: free what can be freed, quietly. */
  cuMemFree(din);
  cuMemFree(dout);
  free(in);
}

static void case_race(void) {
  /* 256 threads: thread t < 128 reads s[t + 128], stored by warps 4..7 with
   * no barrier in between. */
  expect_failure("shared-memory race", "reduce_missing_sync", 4, 256, 1024, CUDA_ERROR_LAUNCH_FAILED, "race");
}

static void case_oob(void) {
  /* n = 1000, 4 blocks of 256: the thread with i == n reads in[1000] and
   * writes out[1000], past both allocations of 1000 floats. */
  expect_failure("out of bounds", "copy_off_by_one", 4, 256, 1000, CUDA_ERROR_ILLEGAL_ADDRESS, NULL);
}

/* ------------------------------------------------------------------- main */

static const struct {
  const char *name;
  void (*run)(void);
  int by_default;
} g_cases[] = {
    {"saxpy", case_saxpy, 1},           {"reduce", case_reduce, 1},
    {"transpose", case_transpose, 1},   {"coalescing", case_coalescing, 1},
    {"bank_conflicts", case_bank_conflicts, 1},
    {"race", case_race, 0},             {"oob", case_oob, 0},
};
#define NCASES (sizeof g_cases / sizeof g_cases[0])

static int selected(const char *name) {
  if (!g_only)
    return -1; /* default set */
  size_t len = strlen(name);
  for (const char *p = g_only; *p;) {
    const char *end = strchr(p, ',');
    size_t l = end ? (size_t)(end - p) : strlen(p);
    if (l == len && strncmp(p, name, len) == 0)
      return 1;
    p += l + (end ? 1 : 0);
  }
  return 0;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += got;
    if (cap - len - 1 == 0) {
      char *bigger = realloc(buf, cap * 2);
      if (!bigger) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf)
    buf[len] = '\0';
  return buf;
}

static void usage(const char *argv0) {
  fprintf(stderr, "usage: %s [--emu] [--only CASE[,CASE...]] KERNELS.ptx\ncases:", argv0);
  for (size_t i = 0; i < NCASES; i++)
    fprintf(stderr, " %s%s", g_cases[i].name, g_cases[i].by_default ? "" : " (only with --only)");
  fprintf(stderr, "\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *ptx_path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--emu") == 0)
      g_emu = 1;
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      g_only = argv[++i];
    else if (argv[i][0] == '-' || ptx_path)
      usage(argv[0]);
    else
      ptx_path = argv[i];
  }
  if (!ptx_path)
    usage(argv[0]);
  if (g_only)
    for (const char *p = g_only; *p;) {
      const char *end = strchr(p, ',');
      size_t l = end ? (size_t)(end - p) : strlen(p);
      int known = 0;
      for (size_t c = 0; c < NCASES; c++)
        known |= strlen(g_cases[c].name) == l && strncmp(p, g_cases[c].name, l) == 0;
      if (!known)
        usage(argv[0]);
      p += l + (end ? 1 : 0);
    }
  if (g_emu && (!tk_cuda_emu_last_stats || !tk_cuda_emu_last_error)) {
    printf("FAIL --emu, but the libcuda.so.1 loaded is not tkc's executor (no tk_cuda_emu_last_stats)\n");
    printf("1 failure(s)\n");
    return 1;
  }

  char *ptx = read_file(ptx_path);
  if (!ptx) {
    printf("FAIL cannot read %s\n1 failure(s)\n", ptx_path);
    return 1;
  }
  check(cuInit(0), "cuInit");
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  check(cuModuleLoadData(&g_module, ptx), "cuModuleLoadData");
  free(ptx);

  for (size_t c = 0; c < NCASES; c++) {
    int sel = selected(g_cases[c].name);
    if (sel == 1 || (sel == -1 && g_cases[c].by_default))
      g_cases[c].run();
  }

  printf("%d failure(s)\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
