// The dense kernels of the cost-model network (TlpNetwork): products of
// row-major float matrices, which carry nearly all of its arithmetic, and
// the element-wise passes of its backward pass. Each runs with the widest
// vectors the CPU has (Simd.h) and sums in a fixed order (every element of
// a product in increasing k), so that its results depend on the inputs and
// the SIMD level only.
#pragma once
#include <cstddef>

namespace tk::costmodel {

// C (m×n) += A (m×k) · B (k×n). All matrices row-major and contiguous; C
// must not overlap A or B.
void gemm(int m, int n, int k, const float *a, const float *b, float *c);

// A layer applied to m rows at once: C (m×n) = bias + A (m×k) · W (k×n), bias
// (n floats) added to every row, then max(·, 0) if relu. Layout rules as gemm.
void linear(int m, int n, int k, const float *a, const float *w, const float *bias, bool relu, float *c);

// C (m×n) += Aᵀ · B with A k×m and B k×n: the weight gradient of a layer
// (inputs ᵀ · output gradients) over k rows of a batch. Same layout rules.
void gemmTransA(int m, int n, int k, const float *a, const float *b, float *c);

// dst (cols×rows) = srcᵀ, src rows×cols; dst must not overlap src.
void transpose(int rows, int cols, const float *src, float *dst);

// dst[i] = act[i] > 0 ? g[i] : 0 for i < n: the gradient g passed back
// through a ReLU whose output was act. dst may be g.
void reluBackward(size_t n, const float *g, const float *act, float *dst);

// out[c] += Σ_r m[r·cols + c] (summed in increasing r): the gradient of a
// bias added to each of the rows of m.
void addColumnSums(int rows, int cols, const float *m, float *out);

} // namespace tk::costmodel
