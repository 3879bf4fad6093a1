#include "scheduler/costmodel/DenseOps.h"

#include "scheduler/costmodel/TileProduct.h"

namespace tk::costmodel {

void gemm(int m, int n, int k, const float *a, const float *b, float *c) {
  runSimd([&]<int L>() __attribute__((always_inline)) {
    product<L>(m, n, k, {a, static_cast<size_t>(k), 1}, b, n, c, n);
  });
}

void linear(int m, int n, int k, const float *a, const float *w, const float *bias, bool relu, float *c) {
  runSimd([&]<int L>() __attribute__((always_inline)) {
    product<L>(m, n, k, {a, static_cast<size_t>(k), 1}, w, n, c, n, {bias, relu});
  });
}

void gemmTransA(int m, int n, int k, const float *a, const float *b, float *c) {
  runSimd([&]<int L>() __attribute__((always_inline)) {
    product<L>(m, n, k, {a, 1, static_cast<size_t>(m)}, b, n, c, n);
  });
}

void transpose(int rows, int cols, const float *src, float *dst) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) dst[static_cast<size_t>(j) * rows + i] = src[static_cast<size_t>(i) * cols + j];
}

void reluBackward(size_t n, const float *g, const float *act, float *dst) {
  runSimd([&]<int L>() __attribute__((always_inline)) {
    const Floats<L> zero{};
    size_t i = 0;
    for (; i + L <= n; i += L) {
      Floats<L> gv, av;
      load<L>(gv, g + i);
      load<L>(av, act + i);
      store<L>(dst + i, av > zero ? gv : zero);
    }
    for (; i < n; ++i) dst[i] = act[i] > 0.0f ? g[i] : 0.0f;
  });
}

void addColumnSums(int rows, int cols, const float *m, float *out) {
  runSimd([&]<int L>() __attribute__((always_inline)) {
    const size_t n = static_cast<size_t>(cols);
    size_t c = 0;
    for (; c + L <= n; c += L) {
      Floats<L> acc, v;
      load<L>(acc, out + c);
      for (size_t r = 0; r < static_cast<size_t>(rows); ++r) {
        load<L>(v, m + r * n + c);
        acc += v;
      }
      store<L>(out + c, acc);
    }
    for (; c < n; ++c)
      for (size_t r = 0; r < static_cast<size_t>(rows); ++r) out[c] += m[r * n + c];
  });
}

} // namespace tk::costmodel
