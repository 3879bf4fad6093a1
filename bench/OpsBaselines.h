// OpsBaselines: the library calls tk_ops_bench compares the custom-operator
// suite (bench/ops/custom_ops.tk) with. Each function prepares its
// primitives once (outside the timed region) and returns a Run on
// caller-owned row-major buffers; what a call covers is said at each one,
// because a library that lacks part of an op is not given a hand-written
// pass for it (that row then has no library column).
#pragma once
#include "bench/Baselines.h"

#include <cstdint>
#include <string>

namespace tk::bench {

enum class Activation { Relu, GeluTanh };

// oneDNN matmul Y = act(X W + b) with the bias and the activation as
// post-ops of the one primitive (the whole op). X[M, K], W[K, N], b[N].
Run onednnLinear(const float *X, const float *W, const float *b, float *Y, int64_t M, int64_t K, int64_t N,
                 Activation act);
// Y = gelu_tanh(X W1 + b1) W2 + b2: two oneDNN matmuls (bias and GELU as
// post-ops of the first, bias of the second); the hidden tensor is stored.
Run onednnMlp(const float *X, const float *W1, const float *b1, const float *W2, const float *b2, float *Y, int64_t M,
              int64_t K, int64_t H, int64_t N);
// Attention O = softmax(scale Q Kᵀ [+ causal mask]) V as three oneDNN
// primitives: matmul (Kᵀ read through strides, scale as output scale, the
// causal mask of 0 / -inf as a binary-add post-op), softmax in place,
// matmul. Q[S, D], K[T, D], V[T, D]; causal needs S == T.
Run onednnAttention(const float *Q, const float *K, const float *V, float *O, int64_t S, int64_t T, int64_t D,
                    float scale, bool causal);
// oneDNN layer normalization with scale and shift (the whole op).
Run onednnLayerNorm(const float *X, const float *gamma, const float *beta, float *Y, int64_t M, int64_t N, float eps);
// oneDNN softmax over the last axis (the whole op).
Run onednnSoftmax(const float *X, float *Y, int64_t M, int64_t N);
// oneDNN eltwise gelu_tanh over N values (the whole op).
Run onednnGeluTanh(const float *X, float *Y, int64_t N);
// oneDNN batched matmul C[b] = A[b] B[b]ᵀ, B[BT, N, K] read through strides.
Run onednnBmmNT(const float *A, const float *B, float *C, int64_t BT, int64_t M, int64_t K, int64_t N);
// oneDNN grouped (groups = C) convolution: a depthwise R x S filter per
// channel, stride 1, zero padding `pad`, NCHW.
Run onednnDepthwise(const float *X, const float *W, float *O, int64_t N, int64_t C, int64_t H, int64_t Wd, int64_t R,
                    int64_t S, int64_t pad);
// oneDNN matmul of s8 A[M, K] and s8 B[K, N] into s32 C[M, N].
Run onednnMatmulS8(const int8_t *A, const int8_t *B, int32_t *C, int64_t M, int64_t K, int64_t N);

// The kernel set OpenBLAS chose when it was loaded (openblas_get_corename:
// "SkylakeX" for its AVX-512 kernels), or "none" without OpenBLAS.
std::string openblasCoreName();

// OpenBLAS sgemm C = alpha A B + beta C, in place on C (BLAS has no
// separate output); empty when built without OpenBLAS.
Run openblasGemm(const float *A, const float *B, float *C, int64_t M, int64_t K, int64_t N, float alpha, float beta);
// OpenBLAS ssyrk: the lower triangle of C = A Aᵀ (C's upper triangle is left
// alone, so the caller zeroes it once); empty without OpenBLAS.
Run openblasSyrkLower(const float *A, float *C, int64_t M, int64_t K);

} // namespace tk::bench
