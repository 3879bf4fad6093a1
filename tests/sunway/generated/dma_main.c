/* A plain C program using a tkc Sunway build (dma.tk, built with
   TK_EMULATE=1): the C ABI of dma.h, linked with -lpthread -lm only. Checks
   the results and that each op moves exactly the compulsory bytes by DMA:
   every input element read once, every output element written once; and
   that a matmul is right with its shared operand broadcast (the CPEs run
   in lockstep rounds and CPE 0 fetches B's blocks for all). With
   TK_EXPECT_ROW_BCAST set (tkc --sunway-broadcast=rows), some of those
   broadcasts must go to one row of CPEs. A softmax over rows of 9001
   columns (longer than a row operator double-buffers: a row at a time,
   its output in blocks) must read X once and write Y once too. */
#include "dma.h"

#include <tk_athread_stats.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int check_bytes(const char *op, uint64_t got, uint64_t want, const char *what) {
  if (got == want) return 0;
  fprintf(stderr, "FAIL: %s moved %llu bytes by %s, expected %llu\n", op, (unsigned long long)got, what,
          (unsigned long long)want);
  return 1;
}

int main(void) {
  const int64_t M = 131, N = 1031; /* primes: ragged chunks and blocks */
  float *a = malloc(sizeof(float) * M * N), *b = malloc(sizeof(float) * M * N), *s = malloc(sizeof(float) * M);
  tk_athread_stats st;
  int64_t i, j;
  int bad = 0;
  for (i = 0; i < M * N; ++i) a[i] = (float)(i % 7) - 3.0f;
  if (scale(a, 0.5f, b, M, N) != 0 || tk_athread_last_stats(&st) != 0) return 1;
  for (i = 0; i < M * N; ++i)
    if (b[i] != a[i] * 0.5f + 1.0f) {
      fprintf(stderr, "FAIL: scale element %lld\n", (long long)i);
      return 1;
    }
  bad |= check_bytes("scale", st.total.get_bytes, sizeof(float) * M * N, "athread_get");
  bad |= check_bytes("scale", st.total.put_bytes, sizeof(float) * M * N, "athread_put");
  if (rowsum(a, s, M, N) != 0 || tk_athread_last_stats(&st) != 0) return 1;
  for (i = 0; i < M; ++i) {
    float want = 0;
    for (j = 0; j < N; ++j) want += a[i * N + j];
    if (s[i] != want) { /* small integers: exact in any order */
      fprintf(stderr, "FAIL: rowsum row %lld: %g, expected %g\n", (long long)i, s[i], want);
      return 1;
    }
  }
  bad |= check_bytes("rowsum", st.total.get_bytes, sizeof(float) * M * N, "athread_get");
  bad |= check_bytes("rowsum", st.total.put_bytes, sizeof(float) * M, "athread_put");
  printf("scale and rowsum: results and DMA bytes as expected\n");
  {
    const int64_t K = 37, P = 211; /* C[M, P] = a[M, K] * b[K, P] */
    float *c = malloc(sizeof(float) * M * P);
    int64_t k;
    if (gemm(a, b, c, M, K, P) != 0 || tk_athread_last_stats(&st) != 0) return 1;
    for (i = 0; i < M; ++i)
      for (j = 0; j < P; ++j) {
        float want = 0;
        for (k = 0; k < K; ++k) want += a[i * K + k] * b[k * P + j];
        if (c[i * P + j] != want) { /* small multiples of 0.5: exact */
          fprintf(stderr, "FAIL: gemm C[%lld][%lld] = %g, expected %g\n", (long long)i, (long long)j, c[i * P + j], want);
          return 1;
        }
      }
    if (st.total.bcast_count == 0 || st.total.bcast_bytes < sizeof(float) * K * P) {
      fprintf(stderr, "FAIL: gemm broadcast %llu bytes in %llu gets, expected B's blocks at least once\n",
              (unsigned long long)st.total.bcast_bytes, (unsigned long long)st.total.bcast_count);
      bad = 1;
    }
    if (getenv("TK_EXPECT_ROW_BCAST") && st.total.row_bcast_count == 0) {
      fprintf(stderr, "FAIL: gemm made no row broadcast\n");
      bad = 1;
    }
    printf("gemm: results as expected, %llu of %llu bytes read by broadcast (%llu by row broadcast)\n",
           (unsigned long long)st.total.bcast_bytes, (unsigned long long)st.total.get_bytes,
           (unsigned long long)st.total.row_bcast_bytes);
    free(c);
  }
  {
    const int64_t R = 67, L = 9001; /* 67 rows: a CPE takes one or two */
    float *y = malloc(sizeof(float) * R * L);
    if (softmax(b, y, R, L) != 0 || tk_athread_last_stats(&st) != 0) return 1;
    for (i = 0; i < R; ++i) {
      double mx = -INFINITY, sum = 0;
      for (j = 0; j < L; ++j) mx = fmax(mx, b[i * L + j]);
      for (j = 0; j < L; ++j) sum += exp(b[i * L + j] - mx);
      for (j = 0; j < L; ++j) {
        double want = exp(b[i * L + j] - mx) / sum;
        if (fabs(y[i * L + j] - want) > 1e-6 + 1e-4 * want) {
          fprintf(stderr, "FAIL: softmax Y[%lld][%lld] = %g, expected %g\n", (long long)i, (long long)j, y[i * L + j], want);
          return 1;
        }
      }
    }
    bad |= check_bytes("softmax", st.total.get_bytes, sizeof(float) * R * L, "athread_get");
    bad |= check_bytes("softmax", st.total.put_bytes, sizeof(float) * R * L, "athread_put");
    printf("softmax over rows of %lld: results and DMA bytes as expected\n", (long long)L);
    free(y);
  }
  free(a);
  free(b);
  free(s);
  return bad;
}
