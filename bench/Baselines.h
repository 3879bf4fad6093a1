// Baselines: the libraries tk_bench compares tkc's kernels with, each
// prepared once (primitive creation outside the timed region) and then run
// as a plain callable on caller-owned row-major f32 buffers.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace tk::bench {

using Run = std::function<void()>;

// Limits both libraries to `threads` worker threads (OpenMP for oneDNN).
void setBaselineThreads(int threads);

// Re-executes this program with OMP_WAIT_POLICY=passive unless it is set
// (returns when it is). OpenMP reads it once at load time. On a shared
// 2-core machine spinning workers of oneDNN lose their cores to other
// processes and a tiny matmul took milliseconds (measured 0.0 vs 34
// GFLOP/s passive at 263x18x40).
void execWithPassiveOpenMp(char **argv);

// oneDNN f32 matmul C[M, N] = A[M, K] B[K, N] (plain row-major layouts).
Run onednnMatmul(const float *A, const float *B, float *C, int64_t M, int64_t K, int64_t N);
// oneDNN direct convolution, NCHW input, OIHW weights, NCHW output.
Run onednnConv2d(const float *X, const float *W, float *O, int64_t N, int64_t C, int64_t H, int64_t Wd,
                 int64_t F, int64_t R, int64_t S, int64_t stride, int64_t pad);
// oneDNN average pooling over kernel x kernel windows, NCHW; padding counts
// in the divisor (tkc's avgpool2d divides by kernel^2).
Run onednnAvgPool2d(const float *X, float *Y, int64_t N, int64_t C, int64_t H, int64_t Wd, int64_t kernel,
                    int64_t stride, int64_t pad);

// OpenBLAS sgemm / sgemv; empty Run when tk_bench was built without OpenBLAS.
bool haveOpenBlas();
Run openblasMatmul(const float *A, const float *B, float *C, int64_t M, int64_t K, int64_t N);
Run openblasGemv(const float *A, const float *x, float *y, int64_t M, int64_t N);

} // namespace tk::bench
