/* Calls gmem.tk's mm once on 70 x 33 x 90 and checks one element. */
#include <stdio.h>
#include <stdlib.h>
#include "gmem.h"

int main(void) {
  const int64_t M = 70, K = 33, N = 90;
  float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N), *c = malloc(sizeof(float) * M * N);
  for (int64_t i = 0; i < M * K; ++i) a[i] = (float)(i % 5);
  for (int64_t i = 0; i < K * N; ++i) b[i] = (float)(i % 3);
  if (mm(a, b, c, M, K, N) != 0) return 1;
  float want = 0;
  for (int64_t k = 0; k < K; ++k) want += a[3 * K + k] * b[k * N + 7];
  if (c[3 * N + 7] != want) {
    printf("gmem: C[3, 7] = %g, expected %g\n", c[3 * N + 7], want);
    return 1;
  }
  printf("gmem: result right\n");
  return 0;
}
