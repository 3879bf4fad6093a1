// The register-tiled matrix product under every cost-model kernel (DenseOps,
// Attention): always inlined, so that it is compiled for the target of the
// kernel's runSimd body (Simd.h). Not for use outside those kernels.
#pragma once
#include "scheduler/costmodel/Simd.h"

#include <cstddef>

namespace tk::costmodel {

// The A operand of a product: element (i, p) at data[i·row + p·step], so one
// loop serves a row-major A (row = k, step = 1), Aᵀ (row = 1, step = m) and
// columns picked out of wider rows.
struct StridedMatrix {
  const float *data;
  size_t row, step;
};

// Where a product's sums start and what happens to them at the end.
struct Epilogue {
  const float *rowInit = nullptr; // each row of C starts as these n floats; null: as C itself
  bool relu = false;              // then C = max(C, 0)
};

namespace detail {

// C[i0..i0+R) × [j0..j0 + L·Q) (+)= A · B over all k: R·Q independent
// accumulator chains, enough to hide the latency of the adds.
template <int L, int R, int Q>
[[gnu::always_inline]] inline void tile(int k, StridedMatrix a, size_t i0, const float *b, size_t ldb, float *c,
                                        size_t ldc, size_t j0, Epilogue e) {
  Floats<L> acc[R][Q];
  for (int r = 0; r < R; ++r)
    for (int q = 0; q < Q; ++q)
      load<L>(acc[r][q], e.rowInit ? e.rowInit + j0 + q * L : c + (i0 + r) * ldc + j0 + q * L);
  for (size_t p = 0; p < static_cast<size_t>(k); ++p) {
    Floats<L> bv[Q];
    for (int q = 0; q < Q; ++q) load<L>(bv[q], b + p * ldb + j0 + q * L);
    for (int r = 0; r < R; ++r) {
      float s = a.data[(i0 + r) * a.row + p * a.step];
      for (int q = 0; q < Q; ++q) acc[r][q] += s * bv[q];
    }
  }
  const Floats<L> zero{};
  for (int r = 0; r < R; ++r)
    for (int q = 0; q < Q; ++q)
      store<L>(c + (i0 + r) * ldc + j0 + q * L, e.relu ? (acc[r][q] > zero ? acc[r][q] : zero) : acc[r][q]);
}

// Rows [i0, i0 + R) of C: tiles of Q vectors, then halves of that, then the
// last n % L columns one by one (the same sums in the same order). AVX-512
// has 32 registers for a 4 × 4 tile, the others 16, enough for 4 × 2.
template <int L, int R, int Q = (L == 16 ? 4 : 2)>
[[gnu::always_inline]] inline void rowBlock(int n, int k, StridedMatrix a, size_t i0, const float *b, size_t ldb,
                                            float *c, size_t ldc, Epilogue e, size_t j = 0) {
  const size_t cols = static_cast<size_t>(n);
  for (; j + Q * L <= cols; j += Q * L) tile<L, R, Q>(k, a, i0, b, ldb, c, ldc, j, e);
  if constexpr (Q > 1) {
    rowBlock<L, R, Q / 2>(n, k, a, i0, b, ldb, c, ldc, e, j);
  } else {
    for (int r = 0; r < R && j < cols; ++r) {
      float *__restrict cr = c + (i0 + r) * ldc;
      if (e.rowInit) std::memcpy(cr + j, e.rowInit + j, (cols - j) * sizeof(float));
      for (size_t p = 0; p < static_cast<size_t>(k); ++p) {
        float s = a.data[(i0 + r) * a.row + p * a.step];
        const float *__restrict bp = b + p * ldb;
        for (size_t jj = j; jj < cols; ++jj) cr[jj] += s * bp[jj];
      }
      if (e.relu)
        for (size_t jj = j; jj < cols; ++jj) cr[jj] = cr[jj] > 0.0f ? cr[jj] : 0.0f;
    }
  }
}

} // namespace detail

// C (m×n, row stride ldc) (+)= A (m×k) · B (k×n, row stride ldb), finished
// by e, with vectors of L floats. Each element of C is summed in increasing p.
template <int L>
[[gnu::always_inline]] inline void product(int m, int n, int k, StridedMatrix a, const float *b, size_t ldb, float *c,
                                           size_t ldc, Epilogue e = {}) {
  int i = 0;
  for (; i + 4 <= m; i += 4) detail::rowBlock<L, 4>(n, k, a, i, b, ldb, c, ldc, e);
  for (; i < m; ++i) detail::rowBlock<L, 1>(n, k, a, i, b, ldb, c, ldc, e);
}

} // namespace tk::costmodel
