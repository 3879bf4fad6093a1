/* bench/ops/stencils.c: the stencils of custom_ops.tk as the plain C loops a
 * programmer writes (zero outside the grid, tested at each neighbour).
 * tk_ops_bench compiles this file at run time with
 * `gcc -O3 -fopenmp -march=native` and times it beside tkc's kernels. */

/* Y = 0.5 X + 0.125 (4 neighbours), X and Y H x W row-major. */
void stencil2d_c(const float *restrict X, float *restrict Y, long H, long W) {
#pragma omp parallel for
  for (long i = 0; i < H; ++i)
    for (long j = 0; j < W; ++j) {
      float n = i > 0 ? X[(i - 1) * W + j] : 0.0f;
      float s = i + 1 < H ? X[(i + 1) * W + j] : 0.0f;
      float w = j > 0 ? X[i * W + j - 1] : 0.0f;
      float e = j + 1 < W ? X[i * W + j + 1] : 0.0f;
      Y[i * W + j] = 0.5f * X[i * W + j] + 0.125f * (n + s + w + e);
    }
}

/* Y = 0.4 X + 0.1 (6 neighbours), X and Y D x H x W row-major. */
void stencil3d_c(const float *restrict X, float *restrict Y, long D, long H, long W) {
#pragma omp parallel for collapse(2)
  for (long i = 0; i < D; ++i)
    for (long j = 0; j < H; ++j)
      for (long k = 0; k < W; ++k) {
        long c = (i * H + j) * W + k;
        float a = i > 0 ? X[c - H * W] : 0.0f;
        float b = i + 1 < D ? X[c + H * W] : 0.0f;
        float n = j > 0 ? X[c - W] : 0.0f;
        float s = j + 1 < H ? X[c + W] : 0.0f;
        float w = k > 0 ? X[c - 1] : 0.0f;
        float e = k + 1 < W ? X[c + 1] : 0.0f;
        Y[c] = 0.4f * X[c] + 0.1f * (a + b + n + s + w + e);
      }
}
