// tk_gpu_bench: tkc-built CUDA kernels next to cuBLAS (and a device copy
// for the memory-bound ops), measured in the same run on device 0; prints
// medians and ratios (docs/benchmarks.md). Exits 0 with "no CUDA device:
// skipped" when there is no driver or device. Every tkc result is compared
// with cuBLAS's result or a CPU reference on sampled elements, and the error
// printed next to its time.
#include "GpuApi.h"

#include "matmul_simt.h"
#include "matmul_simt_large.h"
#include "matmul_simt_space.h"
#include "matmul_tc.h"
#include "nn.h"
#include "row_blocks.h"
#include "tkrt_cuda.h"
#include "warp_reduce.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using tkbench::fail;

namespace {

tkbench::GpuApi api;
std::mt19937 rng(1);
int reps = 10;

void check(const char *what, int s) {
  if (s != 0) fail(fmt::format("{} returned status {}", what, s));
}

// A device buffer of n elements of T, freed at scope exit.
template <typename T> struct Dev {
  T *p = nullptr;
  size_t n;
  explicit Dev(size_t count) : n(count) {
    void *v = nullptr;
    check("tkrt_cuda_alloc", tkrt_cuda_alloc(&v, static_cast<int64_t>(n * sizeof(T)), nullptr));
    p = static_cast<T *>(v);
  }
  Dev(const std::vector<T> &h) : Dev(h.size()) {
    check("copy to device", tkrt_cuda_memcpy_to_device(p, h.data(), n * sizeof(T)));
  }
  Dev(const Dev &) = delete;
  Dev &operator=(const Dev &) = delete;
  ~Dev() { tkrt_cuda_free(p, nullptr); }
  std::vector<T> host() const {
    std::vector<T> h(n);
    check("synchronize", tkrt_cuda_synchronize(nullptr));
    check("copy to host", tkrt_cuda_memcpy_to_host(h.data(), p, n * sizeof(T)));
    return h;
  }
};

std::vector<float> randomFloats(size_t n) {
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (float &x : v) x = d(rng);
  return v;
}

uint16_t toBf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// max |a - b| / (1 + |b|)
double relErr(const std::vector<float> &a, const std::vector<float> &b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double e = std::fabs(static_cast<double>(a[i]) - b[i]) / (1 + std::fabs(b[i]));
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

void header(const char *title, const char *cols) {
  fmt::print("\n## {}\n\n{}\n", title, cols);
}

double tflops(double flops, double ms) { return flops / (ms * 1e-3) / 1e12; }

void gemmRow(const char *kind, int64_t M, int64_t N, int64_t K, const char *tkcName, double tkcMs, double refMs,
             double err) {
  double f = 2.0 * M * N * K;
  fmt::print("| {} | {}x{}x{} | {} | {:.3f} | {:.2f} | {:.3f} | {:.2f} | {:.2f} | {:.1e} |\n", kind, M, N, K, tkcName,
             tkcMs, tflops(f, tkcMs), refMs, tflops(f, refMs), refMs / tkcMs, err);
}

// f32 GEMM: each tkc kernel against cublasSgemm on the same inputs.
void sgemm(int64_t M, int64_t N, int64_t K) {
  Dev<float> A(randomFloats(M * K)), B(randomFloats(K * N)), C(M * N), R(M * N);
  double ref = api.medianMs("cublasSgemm", 2, reps, [&] { return api.sgemm(M, N, K, A.p, B.p, R.p); });
  std::vector<float> want = R.host();
  using Fn = int (*)(const float *, const float *, float *, int64_t, int64_t, int64_t, void *);
  for (auto [name, fn] : {std::pair<const char *, Fn>{"matmul_simt", matmul_simt},
                          {"matmul_simt_large", matmul_simt_large},
                          {"matmul_simt_space", matmul_simt_space}}) {
    double ms = api.medianMs(name, 2, reps, [&] { return fn(A.p, B.p, C.p, M, K, N, nullptr); });
    gemmRow("f32", M, N, K, name, ms, ref, relErr(C.host(), want));
  }
}

// bf16 inputs, f32 output: matmul_bf16 (tensor cores) against cublasGemmEx.
void gemmBf16(int64_t M, int64_t N, int64_t K) {
  std::vector<uint16_t> a(M * K), b(K * N);
  for (uint16_t &x : a) x = toBf16(std::uniform_real_distribution<float>(-1, 1)(rng));
  for (uint16_t &x : b) x = toBf16(std::uniform_real_distribution<float>(-1, 1)(rng));
  Dev<uint16_t> A(a), B(b);
  Dev<float> C(M * N), R(M * N);
  double ref = api.medianMs("cublasGemmEx", 2, reps, [&] { return api.gemmBf16(M, N, K, A.p, B.p, R.p); });
  std::vector<float> want = R.host();
  using Fn = int (*)(const uint16_t *, const uint16_t *, float *, int64_t, int64_t, int64_t, void *);
  for (auto [name, fn] : {std::pair<const char *, Fn>{"matmul_bf16", matmul_bf16},
                          {"matmul_bf16_tc_large", matmul_bf16_tc_large}}) {
    double ms = api.medianMs(name, 2, reps, [&] { return fn(A.p, B.p, C.p, M, K, N, nullptr); });
    gemmRow("bf16", M, N, K, name, ms, ref, relErr(C.host(), want));
  }
}

struct Conv {
  const char *name;
  int64_t N, C, H, W, F, R, S, stride, pad;
  int64_t P() const { return (H + 2 * pad - R) / stride + 1; }
  int64_t Q() const { return (W + 2 * pad - S) / stride + 1; }
};

// tkc's conv2d (std/nn.tk, default schedule: one thread per output) against
// cublasSgemm on the implicit-GEMM shape M = N*P*Q, N = F, K = C*R*S — a
// lower bound for a cuBLAS convolution (no im2col counted). The tkc output
// is checked on 256 sampled elements against a double-precision CPU sum.
void conv(const Conv &c) {
  int64_t P = c.P(), Q = c.Q(), gm = c.N * P * Q, gk = c.C * c.R * c.S;
  std::vector<float> x = randomFloats(c.N * c.C * c.H * c.W), w = randomFloats(c.F * gk);
  Dev<float> X(x), Wt(w), O(c.N * c.F * P * Q), A(randomFloats(gm * gk)), B(randomFloats(gk * c.F)), R(gm * c.F);
  double ref = api.medianMs("cublasSgemm", 2, reps, [&] { return api.sgemm(gm, c.F, gk, A.p, B.p, R.p); });
  double ms = api.medianMs("conv2d", 1, reps, [&] {
    return conv2d(X.p, Wt.p, c.stride, c.pad, 1, O.p, c.N, c.C, c.H, c.W, c.F, c.R, c.S, nullptr);
  });
  std::vector<float> o = O.host();
  double err = 0;
  for (int s = 0; s < 256; ++s) {
    int64_t e = std::uniform_int_distribution<int64_t>(0, static_cast<int64_t>(o.size()) - 1)(rng);
    int64_t q = e % Q, p = e / Q % P, f = e / (P * Q) % c.F, n = e / (P * Q * c.F);
    double sum = 0;
    for (int64_t ch = 0; ch < c.C; ++ch)
      for (int64_t r = 0; r < c.R; ++r)
        for (int64_t t = 0; t < c.S; ++t) {
          int64_t h = p * c.stride + r - c.pad, v = q * c.stride + t - c.pad;
          if (h >= 0 && h < c.H && v >= 0 && v < c.W)
            sum += static_cast<double>(x[((n * c.C + ch) * c.H + h) * c.W + v]) * w[((f * c.C + ch) * c.R + r) * c.S + t];
        }
    err = std::max(err, std::fabs(o[e] - sum) / (1 + std::fabs(sum)));
  }
  double f = 2.0 * gm * c.F * gk;
  fmt::print("| {} | {}x{}x{}x{}, {}->{}, {}x{}/{} | {:.3f} | {:.2f} | {:.3f} | {:.2f} | {:.2f} | {:.1e} |\n", c.name,
             c.N, c.C, c.H, c.W, c.C, c.F, c.R, c.S, c.stride, ms, tflops(f, ms), ref, tflops(f, ref), ref / ms, err);
}

// Row-wise memory-bound ops: bandwidth = bytes that must move (read X
// once, write Y once) / median time, against a device-to-device copy of
// the same M*N floats (which also reads and writes each byte once).
void rowOps(int64_t M, int64_t N) {
  std::vector<float> x = randomFloats(M * N), g = randomFloats(N), b = randomFloats(N);
  Dev<float> X(x), G(g), Bt(b), Y(M * N), Cp(M * N);
  double bytes = 2.0 * M * N * 4;
  double copy = api.medianMs("copy", 2, reps, [&] {
    api.copyDeviceToDevice(Cp.p, X.p, M * N * 4);
    return 0;
  });
  auto gbs = [&](double ms) { return bytes / (ms * 1e-3) / 1e9; };
  auto row = [&](const char *name, double ms, double err) {
    fmt::print("| {} | {}x{} | {:.3f} | {:.0f} | {:.0f} | {:.2f} | {:.1e} |\n", name, M, N, ms, gbs(ms), gbs(copy),
               gbs(ms) / gbs(copy), err);
  };
  // Sampled rows against double-precision CPU references.
  auto softmaxErr = [&](const std::vector<float> &y) {
    double err = 0;
    for (int64_t i = 0; i < M; i += std::max<int64_t>(1, M / 8)) {
      double mx = -INFINITY, s = 0;
      for (int64_t j = 0; j < N; ++j) mx = std::max(mx, static_cast<double>(x[i * N + j]));
      for (int64_t j = 0; j < N; ++j) s += std::exp(x[i * N + j] - mx);
      for (int64_t j = 0; j < N; ++j) err = std::max(err, std::fabs(y[i * N + j] - std::exp(x[i * N + j] - mx) / s));
    }
    return err;
  };
  auto layernormErr = [&](const std::vector<float> &y) {
    double err = 0;
    for (int64_t i = 0; i < M; i += std::max<int64_t>(1, M / 8)) {
      double mu = 0, var = 0;
      for (int64_t j = 0; j < N; ++j) mu += x[i * N + j];
      mu /= N;
      for (int64_t j = 0; j < N; ++j) var += (x[i * N + j] - mu) * (x[i * N + j] - mu);
      double inv = 1 / std::sqrt(var / N + 1e-5);
      for (int64_t j = 0; j < N; ++j) {
        double want = (x[i * N + j] - mu) * inv * g[j] + b[j];
        err = std::max(err, std::fabs(y[i * N + j] - want) / (1 + std::fabs(want)));
      }
    }
    return err;
  };
  double ms = api.medianMs("softmax", 2, reps, [&] { return softmax(X.p, Y.p, M, N, nullptr); });
  row("softmax (constructed row kernel)", ms, softmaxErr(Y.host()));
  ms = api.medianMs("softmax_warp", 2, reps, [&] { return softmax_warp(X.p, Y.p, M, N, nullptr); });
  row("softmax_warp", ms, softmaxErr(Y.host()));
  ms = api.medianMs("layernorm", 2, reps, [&] { return layernorm(X.p, G.p, Bt.p, 1e-5f, Y.p, M, N, nullptr); });
  row("layernorm (constructed row kernel)", ms, layernormErr(Y.host()));
  ms = api.medianMs("layernorm_warp", 2, reps,
                    [&] { return layernorm_warp(X.p, G.p, Bt.p, 1e-5f, Y.p, M, N, nullptr); });
  row("layernorm_warp", ms, layernormErr(Y.host()));
  ms = api.medianMs("softmax_block", 2, reps, [&] { return softmax_block(X.p, Y.p, M, N, nullptr); });
  row("softmax_block", ms, softmaxErr(Y.host()));
  ms = api.medianMs("layernorm_block", 2, reps,
                    [&] { return layernorm_block(X.p, G.p, Bt.p, 1e-5f, Y.p, M, N, nullptr); });
  row("layernorm_block", ms, layernormErr(Y.host()));
  using RowFn = int (*)(const float *, float *, int64_t, int64_t, void *);
  using NormFn = int (*)(const float *, const float *, const float *, float, float *, int64_t, int64_t, void *);
  for (auto [name, fn] : {std::pair<const char *, RowFn>{"softmax_4warps", softmax_4warps},
                          {"softmax_8warps", softmax_8warps}}) {
    ms = api.medianMs(name, 2, reps, [&] { return fn(X.p, Y.p, M, N, nullptr); });
    row(name, ms, softmaxErr(Y.host()));
  }
  for (auto [name, fn] : {std::pair<const char *, NormFn>{"layernorm_4warps", layernorm_4warps},
                          {"layernorm_8warps", layernorm_8warps}}) {
    ms = api.medianMs(name, 2, reps, [&] { return fn(X.p, G.p, Bt.p, 1e-5f, Y.p, M, N, nullptr); });
    row(name, ms, layernormErr(Y.host()));
  }
}

} // namespace

int main(int argc, char **argv) {
  bool quick = false;
  std::string sections = "gemm,bf16,skewed,tableiv,conv,rows";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--sections") && i + 1 < argc) sections = argv[++i];
    else {
      fmt::print(stderr, "usage: tk_gpu_bench [--quick] [--reps N] [--sections gemm,bf16,skewed,tableiv,conv,rows]\n");
      return 2;
    }
  }
  auto want = [&](const char *s) { return ("," + sections + ",").find(std::string(",") + s + ",") != std::string::npos; };
  if (int s = tkrt_cuda_init(); s == TKRT_CUDA_NO_DRIVER || s == TKRT_CUDA_NO_DEVICE) {
    fmt::print("no CUDA device: skipped (tkrt_cuda_init status {}: {})\n", s,
               s == TKRT_CUDA_NO_DRIVER ? "no usable CUDA driver" : "no device 0");
    return 0;
  } else {
    check("tkrt_cuda_init", s);
  }
  if (std::string why = api.load(TK_GPU_BENCH_CUBLAS); !why.empty()) fail(why);
  fmt::print("# tk_gpu_bench: medians of {} runs (CUDA events); ratio = reference time / tkc time\n", reps);

  const char *gemmCols = "| dtype | MxNxK | tkc kernel | tkc ms | tkc TFLOP/s | cuBLAS ms | cuBLAS TFLOP/s | ratio | "
                         "max rel err |\n|---|---|---|---|---|---|---|---|---|";
  std::vector<int64_t> square = quick ? std::vector<int64_t>{1024} : std::vector<int64_t>{1024, 2048, 4096, 8192};
  if (want("gemm") || want("bf16")) header("GEMM, square (tkc vs cuBLAS)", gemmCols);
  if (want("gemm"))
    for (int64_t n : square) sgemm(n, n, n);
  if (want("bf16"))
    for (int64_t n : square) gemmBf16(n, n, n);
  if (want("skewed")) {
    header("GEMM, skewed (M x N x K)", gemmCols);
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{65536, 4, 1024}, {32768, 64, 2048}, {16384, 32, 1024}})
      sgemm(m, n, k);
  }
  if (want("tableiv")) { // Gensor's Table IV GEMMs (M1 = 8192^3 is the square case)
    header("GEMM, Gensor Table IV M2 and M3 (M x N x K)", gemmCols);
    sgemm(65536, 1024, 4);
    sgemm(65536, 4096, 1024);
  }

  if (!want("conv") && !want("rows")) return 0;
  if (want("conv")) header("ResNet-50 convolutions, batch 8 (tkc conv2d vs cuBLAS SGEMM of the implicit-GEMM shape)",
         "| layer | NxCxHxW, C->F, RxS/stride | tkc ms | tkc TFLOP/s | cuBLAS ms | cuBLAS TFLOP/s | ratio | "
         "max rel err (256 samples) |\n|---|---|---|---|---|---|---|---|");
  std::vector<Conv> convs = {{"conv1", 8, 3, 224, 224, 64, 7, 7, 2, 3},     {"res2 3x3", 8, 64, 56, 56, 64, 3, 3, 1, 1},
                             {"res2 1x1", 8, 256, 56, 56, 64, 1, 1, 1, 0}, {"res3 3x3", 8, 128, 28, 28, 128, 3, 3, 1, 1},
                             {"res4 3x3", 8, 256, 14, 14, 256, 3, 3, 1, 1}, {"res5 3x3", 8, 512, 7, 7, 512, 3, 3, 1, 1}};
  if (want("conv"))
    for (const Conv &c : quick ? std::vector<Conv>(convs.begin() + 1, convs.begin() + 2) : convs) conv(c);
  if (!want("rows")) return 0;

  header("Row-wise ops (bandwidth = 2 x M x N x 4 bytes / time, vs a device-to-device copy of M x N floats)",
         "| kernel | MxN | ms | GB/s | copy GB/s | fraction of copy | max err (8 rows) |\n|---|---|---|---|---|---|---|");
  for (auto [m, n] : quick ? std::vector<std::pair<int64_t, int64_t>>{{4096, 1024}}
                           : std::vector<std::pair<int64_t, int64_t>>{{65536, 1024}, {16384, 4096}, {4096, 32768}})
    rowOps(m, n);
  return 0;
}
