/* matmul_common.h - what the matmul lessons' driver (matmul_main.c) and
 * the demo (examples/demo/demo.c) share: the arguments of one call of
 * C = A B, oneDNN's SGEMM on them, and the double-precision reference. */
#ifndef TK_TUTORIAL_MATMUL_COMMON_H
#define TK_TUTORIAL_MATMUL_COMMON_H

#include "tutorial.h"

#include <dnnl.h>

typedef struct {
  const float *A, *B;
  float *C;
  int64_t M, K, N;
} mm_args;

/* Row-major, no transposes; the leading dimensions must be >= 1 even for
 * empty matrices. */
static inline int tut_call_onednn_sgemm(void *p) {
  mm_args *a = p;
  dnnl_status_t s = dnnl_sgemm('N', 'N', a->M, a->N, a->K, 1.0f, a->A, a->K > 0 ? a->K : 1, a->B,
                               a->N > 0 ? a->N : 1, 0.0f, a->C, a->N > 0 ? a->N : 1);
  return s == dnnl_success ? 0 : 100 + (int)s;
}

/* A B in double precision, newly allocated (null when out of memory); the
 * i-k-j order walks B and the reference row along memory. */
static inline double *tut_matmul_reference(const float *A, const float *B, int64_t M, int64_t K, int64_t N) {
  double *want = calloc((size_t)(M * N > 0 ? M * N : 1), sizeof(double));
  if (!want) return NULL;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) {
      double a = A[i * K + k];
      for (int64_t j = 0; j < N; ++j) want[i * N + j] += a * (double)B[k * N + j];
    }
  return want;
}

#endif
