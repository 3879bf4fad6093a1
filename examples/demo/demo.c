/* demo.c - drives the tkc-compiled examples/matmul.tk.
 *
 * For each shape M x K x N: fills A, B with random values, calls the
 * generated `matmul` (C ABI, see matmul.h from `tkc --emit=header`), compares
 * with a naive double-precision reference and reports the max abs error and
 * GFLOP/s (best of several runs).  Exit status 1 if any result is wrong.
 *
 *   demo                      # default shapes
 *   demo M K N [M K N ...]    # custom shapes
 */
#define _POSIX_C_SOURCE 199309L
#include "matmul.h" /* int matmul(const float*, const float*, float*, int64_t M, int64_t K, int64_t N) */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static float rnd(void) { /* uniform in [-1, 1) */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (float)((double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static int run_shape(int64_t M, int64_t K, int64_t N) {
  float *A = malloc(sizeof(float) * (size_t)(M * K));
  float *B = malloc(sizeof(float) * (size_t)(K * N));
  float *C = malloc(sizeof(float) * (size_t)(M * N));
  double *R = calloc((size_t)(M * N), sizeof(double));
  if (!A || !B || !C || !R) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  for (int64_t i = 0; i < M * K; ++i) A[i] = rnd();
  for (int64_t i = 0; i < K * N; ++i) B[i] = rnd();
  for (int64_t i = 0; i < M * N; ++i) C[i] = NAN;

  /* naive reference, i-k-j order, double accumulation */
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) {
      double a = A[i * K + k];
      for (int64_t j = 0; j < N; ++j) R[i * N + j] += a * (double)B[k * N + j];
    }

  int rc = matmul(A, B, C, M, K, N);
  double err = 0.0;
  for (int64_t i = 0; i < M * N; ++i) {
    double e = fabs((double)C[i] - R[i]);
    if (!(e <= err)) err = e; /* NaN propagates */
  }

  /* timing: repeat until at least 0.2 s, report the best run */
  double best = 1e30, total = 0.0;
  int runs = 0;
  while (rc == 0 && (total < 0.2 || runs < 3) && runs < 1000) {
    double t0 = now_s();
    matmul(A, B, C, M, K, N);
    double t = now_s() - t0;
    total += t;
    if (t < best) best = t;
    ++runs;
  }
  double gflops = rc == 0 && best > 0 ? 2.0 * (double)M * (double)N * (double)K / best * 1e-9 : 0.0;
  double tol = 1e-5 * (double)K + 1e-5;
  int ok = rc == 0 && err <= tol;
  printf("%6lld x %6lld x %6lld   max|err| = %.3e   %8.2f GFLOP/s   %s\n", (long long)M, (long long)K,
         (long long)N, err, gflops, ok ? "ok" : (rc ? "FAILED (matmul returned non-zero)" : "FAILED"));
  free(A);
  free(B);
  free(C);
  free(R);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  static const int64_t defaults[][3] = {{64, 64, 64}, {257, 129, 511}, {1024, 1024, 1024}, {2039, 1, 7}};
  int failures = 0;
  printf("tk demo: C = A B (f32), shapes M x K x N\n");
  if (argc > 1) {
    if ((argc - 1) % 3 != 0) {
      fprintf(stderr, "usage: %s [M K N]...\n", argv[0]);
      return 2;
    }
    for (int a = 1; a + 2 < argc; a += 3)
      failures += run_shape(atoll(argv[a]), atoll(argv[a + 1]), atoll(argv[a + 2]));
  } else {
    for (size_t s = 0; s < sizeof(defaults) / sizeof(defaults[0]); ++s)
      failures += run_shape(defaults[s][0], defaults[s][1], defaults[s][2]);
  }
  printf(failures ? "demo: %d shape(s) FAILED\n" : "demo: all shapes correct\n", failures);
  return failures ? 1 : 0;
}
