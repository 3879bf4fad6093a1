/* Calls the tkc-compiled matmul (../matmul.tk) on a small ragged shape and
 * checks it against a naive loop.  Exit status 0 on success. */
#include "matmul.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

enum { M = 13, K = 7, N = 37 };

int main(void) {
  static float A[M * K], B[K * N], C[M * N];
  for (int i = 0; i < M * K; ++i) A[i] = (float)((i * 7) % 11) - 5.0f;
  for (int i = 0; i < K * N; ++i) B[i] = (float)((i * 5) % 13) * 0.25f - 1.5f;
  int rc = matmul(A, B, C, M, K, N);
  if (rc != 0) {
    printf("matmul returned %d\n", rc);
    return 1;
  }
  double err = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double r = 0;
      for (int k = 0; k < K; ++k) r += (double)A[i * K + k] * B[k * N + j];
      double e = fabs(r - C[i * N + j]);
      if (!(e <= err)) err = e;
    }
  printf("matmul %dx%dx%d: max|err| = %g -> %s\n", M, K, N, err, err < 1e-3 ? "OK" : "FAILED");
  return err < 1e-3 ? 0 : 1;
}
