/* Runs tkc cuda kernels on device 0 and compares them with a double-precision
 * CPU reference on random inputs, including prime (partial-tile) shapes.
 * Exits 77 when no CUDA driver or device is present (ctest: skipped). */
#include "elementwise.h"
#include "fusion.h"
#include "launch_limits.h"
#include "linalg.h"
#include "matmul_simt.h"
#include "matmul_simt_large.h"
#include "matmul_tc.h"
#include "nn.h"
#include "output_hash.h"
#include "tkrt_cuda.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static float *random_floats(size_t n) {
  float *p = malloc(n * sizeof(float) + 1);
  for (size_t i = 0; i < n; ++i) p[i] = (float)rand() / RAND_MAX * 2.0f - 1.0f;
  return p;
}

static void *to_device(const float *h, size_t n) {
  void *d = NULL;
  if (tkrt_cuda_alloc(&d, (int64_t)(n * sizeof(float)), NULL) != 0 ||
      tkrt_cuda_memcpy_to_device(d, h, n * sizeof(float)) != 0) {
    fprintf(stderr, "device allocation or copy failed\n");
    exit(1);
  }
  return d;
}

static void compare(const char *what, const float *dev, const double *want, size_t n, double tol) {
  float *got = malloc(n * sizeof(float) + 1);
  if (tkrt_cuda_synchronize(NULL) != 0 || tkrt_cuda_memcpy_to_host(got, dev, n * sizeof(float)) != 0) {
    fprintf(stderr, "%s: synchronize or copy back failed\n", what);
    exit(1);
  }
  record_output_hash(what, got, n * sizeof(float));
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double err = fabs(got[i] - want[i]) / (1.0 + fabs(want[i]));
    if (!(err <= worst)) worst = err;
  }
  int ok = worst <= tol;
  printf("%-28s n=%-8zu max rel err %.3g %s\n", what, n, worst, ok ? "ok" : "FAIL");
  failures += !ok;
  free(got);
}

static void check_status(const char *what, int s) {
  if (s != 0) {
    fprintf(stderr, "%s returned status %d\n", what, s);
    exit(1);
  }
}

static void test_matmul(int64_t M, int64_t K, int64_t N) {
  float *A = random_floats((size_t)(M * K)), *B = random_floats((size_t)(K * N));
  double *ref = malloc(sizeof(double) * (size_t)(M * N) + 1);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += (double)A[i * K + k] * B[k * N + j];
      ref[i * N + j] = s;
    }
  void *dA = to_device(A, (size_t)(M * K)), *dB = to_device(B, (size_t)(K * N)), *dC = NULL;
  check_status("alloc", tkrt_cuda_alloc(&dC, M * N * 4, NULL));
  char what[64];
  check_status("matmul", matmul(dA, dB, dC, M, K, N, NULL));
  snprintf(what, sizeof what, "matmul %ldx%ldx%ld", (long)M, (long)K, (long)N);
  compare(what, dC, ref, (size_t)(M * N), 1e-4);
  check_status("matmul_simt", matmul_simt(dA, dB, dC, M, K, N, NULL));
  snprintf(what, sizeof what, "matmul_simt %ldx%ldx%ld", (long)M, (long)K, (long)N);
  compare(what, dC, ref, (size_t)(M * N), 1e-4);
  check_status("matmul_simt_large", matmul_simt_large(dA, dB, dC, M, K, N, NULL));
  snprintf(what, sizeof what, "matmul_simt_large %ldx%ldx%ld", (long)M, (long)K, (long)N);
  compare(what, dC, ref, (size_t)(M * N), 1e-4);
  tkrt_cuda_free(dA, NULL);
  tkrt_cuda_free(dB, NULL);
  tkrt_cuda_free(dC, NULL);
  free(A);
  free(B);
  free(ref);
}

/* f16 / bf16 bit patterns of x (round to nearest even) and their values. */
static uint16_t to_half_bits(float x, int bf16, double *value) {
  uint16_t bits;
  if (bf16) {
    uint32_t u;
    memcpy(&u, &x, 4);
    bits = (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
    u = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &u, 4);
    *value = f;
  } else {
    _Float16 h = (_Float16)x;
    memcpy(&bits, &h, 2);
    *value = (double)h;
  }
  return bits;
}

/* Tensor-core matmul (stdlib/gpu/matmul_tc.tk): half inputs, f32 output;
 * the reference uses the rounded inputs, so only f32 accumulation differs.
 * `large`: the 128 x 128-tile, three-stage kernels. */
static void test_matmul_tc(int64_t M, int64_t K, int64_t N, int bf16, int large) {
  size_t na = (size_t)(M * K), nb = (size_t)(K * N);
  uint16_t *A = malloc(na * 2 + 2), *B = malloc(nb * 2 + 2);
  double *a = malloc(na * sizeof(double) + 1), *b = malloc(nb * sizeof(double) + 1);
  double *ref = malloc(sizeof(double) * (size_t)(M * N) + 1);
  for (size_t i = 0; i < na; ++i) A[i] = to_half_bits((float)rand() / RAND_MAX * 2.0f - 1.0f, bf16, &a[i]);
  for (size_t i = 0; i < nb; ++i) B[i] = to_half_bits((float)rand() / RAND_MAX * 2.0f - 1.0f, bf16, &b[i]);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += a[i * K + k] * b[k * N + j];
      ref[i * N + j] = s;
    }
  void *dA = NULL, *dB = NULL, *dC = NULL;
  check_status("alloc", tkrt_cuda_alloc(&dA, (int64_t)na * 2, NULL));
  check_status("alloc", tkrt_cuda_alloc(&dB, (int64_t)nb * 2, NULL));
  check_status("alloc", tkrt_cuda_alloc(&dC, M * N * 4, NULL));
  check_status("copy", tkrt_cuda_memcpy_to_device(dA, A, na * 2));
  check_status("copy", tkrt_cuda_memcpy_to_device(dB, B, nb * 2));
  int status = large ? (bf16 ? matmul_bf16_tc_large(dA, dB, dC, M, K, N, NULL)
                             : matmul_f16_tc_large(dA, dB, dC, M, K, N, NULL))
                     : (bf16 ? matmul_bf16(dA, dB, dC, M, K, N, NULL) : matmul_f16(dA, dB, dC, M, K, N, NULL));
  check_status("matmul_tc", status);
  char what[64];
  snprintf(what, sizeof what, "matmul_%s%s %ldx%ldx%ld", bf16 ? "bf16" : "f16", large ? "_tc_large" : "", (long)M,
           (long)K, (long)N);
  compare(what, dC, ref, (size_t)(M * N), 1e-4);
  tkrt_cuda_free(dA, NULL);
  tkrt_cuda_free(dB, NULL);
  tkrt_cuda_free(dC, NULL);
  free(A);
  free(B);
  free(a);
  free(b);
  free(ref);
}

static void test_softmax(int64_t M, int64_t N) {
  float *X = random_floats((size_t)(M * N));
  double *ref = malloc(sizeof(double) * (size_t)(M * N) + 1);
  for (int64_t i = 0; i < M; ++i) {
    double mx = -INFINITY, s = 0;
    for (int64_t j = 0; j < N; ++j) mx = fmax(mx, X[i * N + j]);
    for (int64_t j = 0; j < N; ++j) s += exp(X[i * N + j] - mx);
    for (int64_t j = 0; j < N; ++j) ref[i * N + j] = exp(X[i * N + j] - mx) / s;
  }
  void *dX = to_device(X, (size_t)(M * N)), *dY = NULL;
  check_status("alloc", tkrt_cuda_alloc(&dY, M * N * 4, NULL));
  check_status("softmax", softmax(dX, dY, M, N, NULL));
  compare("softmax", dY, ref, (size_t)(M * N), 1e-5);
  tkrt_cuda_free(dX, NULL);
  tkrt_cuda_free(dY, NULL);
  free(X);
  free(ref);
}

static void test_unary(int64_t n) {
  float *X = random_floats((size_t)n);
  for (int64_t i = 0; i < n; ++i) X[i] *= 4; /* tanh, erf and exp over [-4, 4] */
  double *ref = malloc(sizeof(double) * (size_t)n + 1);
  void *dX = to_device(X, (size_t)n), *dY = NULL;
  check_status("alloc", tkrt_cuda_alloc(&dY, n * 4, NULL));
  for (int64_t i = 0; i < n; ++i) ref[i] = 0.5 * X[i] * (1 + erf(X[i] / sqrt(2.0)));
  check_status("gelu", gelu(dX, dY, n, NULL));
  compare("gelu", dY, ref, (size_t)n, 1e-5);
  for (int64_t i = 0; i < n; ++i) ref[i] = tanh(X[i]);
  check_status("vtanh", vtanh(dX, dY, n, NULL));
  compare("vtanh", dY, ref, (size_t)n, 1e-5);
  for (int64_t i = 0; i < n; ++i) ref[i] = exp(X[i]);
  check_status("vexp", vexp(dX, dY, n, NULL));
  compare("vexp", dY, ref, (size_t)n, 1e-5);
  tkrt_cuda_free(dX, NULL);
  tkrt_cuda_free(dY, NULL);
  free(X);
  free(ref);
}

/* tests/e2e/fusion.tk's reshape_conv1x1: a matmul over the N*H*W pixel rows
 * whose bias + ReLU epilogue, fused into the one launch, writes O in NCHW
 * through the inverse of the row flattening (n, y, x by div/mod). */
static void test_reshape_conv1x1(int64_t N, int64_t H, int64_t W, int64_t C, int64_t F) {
  int64_t P = N * H * W;
  float *X = random_floats((size_t)(P * C)), *Wt = random_floats((size_t)(C * F)), *bias = random_floats((size_t)F);
  double *ref = malloc(sizeof(double) * (size_t)(P * F) + 1);
  for (int64_t p = 0; p < P; ++p)
    for (int64_t f = 0; f < F; ++f) {
      double s = 0;
      for (int64_t c = 0; c < C; ++c) s += (double)X[p * C + c] * Wt[c * F + f];
      int64_t n = p / (H * W), y = p / W % H, x = p % W;
      ref[((n * F + f) * H + y) * W + x] = fmax(s + bias[f], 0.0);
    }
  void *dX = to_device(X, (size_t)(P * C)), *dW = to_device(Wt, (size_t)(C * F)), *db = to_device(bias, (size_t)F);
  void *dO = NULL;
  check_status("alloc", tkrt_cuda_alloc(&dO, P * F * 4, NULL));
  check_status("reshape_conv1x1", reshape_conv1x1(dX, dW, db, dO, N, H, W, C, F, NULL));
  char what[64];
  snprintf(what, sizeof what, "reshape_conv1x1 %ldx%ldx%ldx%ldx%ld", (long)N, (long)H, (long)W, (long)C, (long)F);
  compare(what, dO, ref, (size_t)(P * F), 1e-4);
  tkrt_cuda_free(dX, NULL);
  tkrt_cuda_free(dW, NULL);
  tkrt_cuda_free(db, NULL);
  tkrt_cuda_free(dO, NULL);
  free(X);
  free(Wt);
  free(bias);
  free(ref);
}

/* launch_limits.tk: 64 KiB of dynamic shared memory per block, and a grid
 * of 2^31 + 1021 one-thread blocks (gridDim.y = 2). */
static void test_launch_limits(int huge_grid) {
  int64_t n = 3 * 16384 + 5;
  float *A = random_floats((size_t)n);
  double *ref = malloc(sizeof(double) * (size_t)n + 1);
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = i / 16384 * 16384 + 16383 - i % 16384;
    ref[i] = src < n ? A[src] : 0;
  }
  void *dA = to_device(A, (size_t)n), *dB = NULL;
  check_status("alloc", tkrt_cuda_alloc(&dB, n * 4, NULL));
  check_status("reverse_chunks_shared", reverse_chunks_shared(dA, dB, n, NULL));
  compare("reverse_chunks_shared 64 KiB", dB, ref, (size_t)n, 0);
  tkrt_cuda_free(dA, NULL);
  tkrt_cuda_free(dB, NULL);
  free(A);
  free(ref);

  /* Under compute-sanitizer 2^31 blocks take hours: --no-huge-grid. */
  if (!huge_grid) return;
  int64_t big = ((int64_t)1 << 31) + 1021;
  /* 256-byte windows: the first blocks, the first ones with blockIdx.y = 1
   * (linear index 2^31 - 1 on), and the last ones; each lies inside the
   * buffers and none overlaps another (the middle one ends at 2^31 + 128,
   * the last starts at 2^31 + 765). */
  int64_t windows[3] = {0, ((int64_t)1 << 31) - 128, big - 256};
  void *dX = NULL, *dY = NULL;
  check_status("alloc", tkrt_cuda_alloc(&dX, big, NULL));
  check_status("alloc", tkrt_cuda_alloc(&dY, big, NULL));
  int8_t pattern[256], got[256];
  for (int i = 0; i < 256; ++i) pattern[i] = (int8_t)(i - 128);
  for (int w = 0; w < 3; ++w) check_status("copy", tkrt_cuda_memcpy_to_device((char *)dX + windows[w], pattern, 256));
  check_status("inc_bytes_blocks", inc_bytes_blocks(dX, dY, big, NULL));
  check_status("synchronize", tkrt_cuda_synchronize(NULL));
  int ok = 1;
  for (int w = 0; w < 3; ++w) {
    check_status("copy back", tkrt_cuda_memcpy_to_host(got, (char *)dY + windows[w], 256));
    int bad = 0, first = -1;
    for (int i = 0; i < 256; ++i)
      if (got[i] != (int8_t)(pattern[i] + 1)) bad += 1, first = first < 0 ? i : first;
    if (bad)
      printf("  window at %lld: %d wrong bytes, first at +%d: got %d, want %d\n", (long long)windows[w], bad, first,
             got[first], (int8_t)(pattern[first] + 1));
    ok &= bad == 0;
  }
  printf("%-28s n=%-8lld %s\n", "inc_bytes_blocks 2^31+1021", (long long)big, ok ? "ok" : "FAIL");
  failures += !ok;
  tkrt_cuda_free(dX, NULL);
  tkrt_cuda_free(dY, NULL);
}

int main(int argc, char **argv) {
  int huge_grid = !(argc > 1 && strcmp(argv[1], "--no-huge-grid") == 0);
  int s = tkrt_cuda_init();
  if (s == TKRT_CUDA_NO_DRIVER || s == TKRT_CUDA_NO_DEVICE) {
    printf("SKIP: no CUDA %s (status %d)\n", s == TKRT_CUDA_NO_DRIVER ? "driver" : "device", s);
    return 77;
  }
  check_status("tkrt_cuda_init", s);
  srand(1);
  test_matmul(64, 64, 64);
  test_matmul(257, 129, 511);
  test_matmul(1, 7, 1);
  for (int bf16 = 0; bf16 < 2; ++bf16) {
    test_matmul_tc(128, 256, 64, bf16, 0); /* aligned: the cp.async path */
    test_matmul_tc(257, 129, 511, bf16, 0); /* prime sizes: element-wise copies, partial tiles */
    test_matmul_tc(1, 7, 1, bf16, 0);
    test_matmul_tc(256, 160, 384, bf16, 1); /* aligned, 5 slices through the 3 stages */
    test_matmul_tc(257, 129, 511, bf16, 1);
    test_matmul_tc(1, 7, 1, bf16, 1);
  }
  test_softmax(37, 1001);
  test_unary(100003);
  test_reshape_conv1x1(2, 7, 13, 17, 33); /* primes: partial blocks, mixed radices */
  test_reshape_conv1x1(1, 1, 1, 1, 1);
  test_reshape_conv1x1(3, 1, 31, 8, 5);
  test_launch_limits(huge_grid);
  return failures ? 1 : 0;
}
