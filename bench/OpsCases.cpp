// The cases of tk_ops_bench: each op of bench/ops/custom_ops.tk at a
// realistic shape, with the baselines that have it. The PyTorch case of a
// row names the op and extents bench/ops_torch.py builds it from.
#include "bench/OpsBaselines.h"
#include "bench/OpsBench.h"

#include <fmt/format.h>

#include <cmath>
#include <dlfcn.h>

namespace tk::bench {

namespace {

using I = int64_t;

// Compares two outputs of `n` elements of any arithmetic type.
template <typename T> std::function<double()> compare(const T *got, const T *want, size_t n) {
  return [=] {
    Buffer a(n), b(n);
    for (size_t i = 0; i < n; ++i)
      a[i] = static_cast<float>(got[i]), b[i] = static_cast<float>(want[i]);
    return maxRelDiff(a, b);
  };
}

void attention(Bench &b, bool causal) {
  I S = 4096, T = 4096, D = 128;
  float scale = 1.0f / std::sqrt(float(D));
  // Causal: only the products of the lower triangle (diagonal included) count.
  double flops = causal ? 2.0 * S * (S + 1) * D : 4.0 * S * T * D;
  Row row{fmt::format("attention{} S={} D={}", causal ? " causal" : "", S, D), flops, false};
  if (!b.wanted(row.name))
    return;
  Buffer Q = b.random(S * D), K = b.random(T * D), V = b.random(T * D), O(S * D), Oref(S * D);
  std::function<int()> tkc;
  if (causal) {
    auto f = b.fn<int (*)(const float *, const float *, const float *, float, float *, I, I)>("attention_causal");
    tkc = [&, f] { return f(Q.data(), K.data(), V.data(), scale, O.data(), S, D); };
  } else {
    auto f = b.fn<int (*)(const float *, const float *, const float *, float, float *, I, I, I)>("attention");
    tkc = [&, f] { return f(Q.data(), K.data(), V.data(), scale, O.data(), S, D, T); };
  }
  b.measure(row, tkc, {{"oneDNN", onednnAttention(Q.data(), K.data(), V.data(), Oref.data(), S, T, D, scale, causal)}},
            compare(O.data(), Oref.data(), O.size()),
            causal ? TorchCase{"", "attention_causal", {S, D}} : TorchCase{"", "attention", {S, T, D}});
}

void linear(Bench &b, Activation act) {
  I M = 2048, K = 1024, N = 4096;
  const char *op = act == Activation::Relu ? "linear_relu" : "linear_gelu";
  Row row{fmt::format("{} {}x{}x{}", op, M, K, N), 2.0 * M * K * N, false};
  if (!b.wanted(row.name))
    return;
  Buffer X = b.random(M * K), W = b.random(K * N), bias = b.random(N), Y(M * N), Yref(M * N);
  auto f = b.fn<int (*)(const float *, const float *, const float *, float *, I, I, I)>(op);
  b.measure(row, [&, f] { return f(X.data(), W.data(), bias.data(), Y.data(), M, K, N); },
            {{"oneDNN", onednnLinear(X.data(), W.data(), bias.data(), Yref.data(), M, K, N, act)}},
            compare(Y.data(), Yref.data(), Y.size()), {"", op, {M, K, N}});
}

void mlp(Bench &b) {
  I M = 2048, K = 1024, H = 4096, N = 1024;
  Row row{fmt::format("mlp {}x{}x{}x{}", M, K, H, N), 2.0 * M * K * H + 2.0 * M * H * N, false};
  if (!b.wanted(row.name))
    return;
  Buffer X = b.random(M * K), W1 = b.random(K * H), b1 = b.random(H), W2 = b.random(H * N), b2 = b.random(N);
  Buffer Y(M * N), Yref(M * N);
  auto f =
      b.fn<int (*)(const float *, const float *, const float *, const float *, const float *, float *, I, I, I, I)>(
          "mlp");
  b.measure(row, [&, f] { return f(X.data(), W1.data(), b1.data(), W2.data(), b2.data(), Y.data(), M, K, H, N); },
            {{"oneDNN", onednnMlp(X.data(), W1.data(), b1.data(), W2.data(), b2.data(), Yref.data(), M, K, H, N)}},
            compare(Y.data(), Yref.data(), Y.size()), {"", "mlp", {M, K, H, N}});
}

// Row-wise ops over 4096 x 4096: one read of X, one write of Y.
void rowOps(Bench &b) {
  I M = 4096, N = 4096;
  float eps = 1e-5f;
  Buffer X = b.random(M * N), w = b.random(N), beta = b.random(N), Y(M * N), Yref(M * N);
  for (const char *op : {"rmsnorm", "layernorm", "softmax"}) {
    Row row{fmt::format("{} {}x{}", op, M, N), 8.0 * M * N, true};
    if (!b.wanted(row.name))
      continue;
    std::string name = op;
    std::function<int()> tkc;
    std::vector<std::pair<std::string, Run>> libs;
    if (name == "rmsnorm") { // oneDNN 2.x has no RMS normalization
      auto f = b.fn<int (*)(const float *, const float *, float, float *, I, I)>(op);
      tkc = [&, f] { return f(X.data(), w.data(), eps, Y.data(), M, N); };
    } else if (name == "layernorm") {
      auto f = b.fn<int (*)(const float *, const float *, const float *, float, float *, I, I)>(op);
      tkc = [&, f] { return f(X.data(), w.data(), beta.data(), eps, Y.data(), M, N); };
      libs.push_back({"oneDNN", onednnLayerNorm(X.data(), w.data(), beta.data(), Yref.data(), M, N, eps)});
    } else {
      auto f = b.fn<int (*)(const float *, float *, I, I)>(op);
      tkc = [&, f] { return f(X.data(), Y.data(), M, N); };
      libs.push_back({"oneDNN", onednnSoftmax(X.data(), Yref.data(), M, N)});
    }
    b.measure(row, tkc, libs, libs.empty() ? nullptr : compare(Y.data(), Yref.data(), Y.size()), {"", op, {M, N}});
  }
}

void gelu(Bench &b) {
  I N = I(16) << 20;
  Row row{"gelu_tanh 16M", 8.0 * N, true};
  if (!b.wanted(row.name))
    return;
  Buffer X = b.random(N), Y(N), Yref(N);
  auto f = b.fn<int (*)(const float *, float *, I)>("gelu_tanh");
  b.measure(row, [&, f] { return f(X.data(), Y.data(), N); }, {{"oneDNN", onednnGeluTanh(X.data(), Yref.data(), N)}},
            compare(Y.data(), Yref.data(), Y.size()), {"", "gelu_tanh", {N}});
}

void bmmNT(Bench &b) {
  I BT = 32, M = 512, K = 64, N = 512;
  Row row{fmt::format("bmm_nt {}x{}x{}x{}", BT, M, K, N), 2.0 * BT * M * K * N, false};
  if (!b.wanted(row.name))
    return;
  Buffer A = b.random(BT * M * K), B = b.random(BT * N * K), C(BT * M * N), Cref(BT * M * N);
  auto f = b.fn<int (*)(const float *, const float *, float *, I, I, I, I)>("bmm_nt");
  b.measure(row, [&, f] { return f(A.data(), B.data(), C.data(), BT, M, K, N); },
            {{"oneDNN", onednnBmmNT(A.data(), B.data(), Cref.data(), BT, M, K, N)}},
            compare(C.data(), Cref.data(), C.size()), {"", "bmm_nt", {BT, M, K, N}});
}

// MobileNet-style depthwise 3x3 over 8 x 64 x 112 x 112: one read of X, one
// write of O.
void depthwise(Bench &b) {
  I N = 8, C = 64, H = 112, W = 112, R = 3, S = 3, pad = 1;
  Row row{fmt::format("depthwise_conv {}x{}x{}x{} 3x3 p1", N, C, H, W), 8.0 * N * C * H * W, true};
  if (!b.wanted(row.name))
    return;
  Buffer X = b.random(N * C * H * W), Wt = b.random(C * R * S), O(N * C * H * W), Oref(N * C * H * W);
  auto f = b.fn<int (*)(const float *, const float *, I, float *, I, I, I, I, I, I)>("depthwise_conv");
  b.measure(row, [&, f] { return f(X.data(), Wt.data(), pad, O.data(), N, C, H, W, R, S); },
            {{"oneDNN", onednnDepthwise(X.data(), Wt.data(), Oref.data(), N, C, H, W, R, S, pad)}},
            compare(O.data(), Oref.data(), O.size()), {"", "depthwise_conv", {N, C, H, W, R, S, pad}});
}

void matmulI8(Bench &b) {
  I M = 1024, K = 1024, N = 1024;
  Row row{fmt::format("matmul_i8 {}x{}x{} (GOP/s)", M, K, N), 2.0 * M * K * N, false};
  if (!b.wanted(row.name))
    return;
  std::uniform_int_distribution<int> d(-10, 10);
  std::vector<int8_t> A(M * K), B(K * N);
  for (auto &x : A)
    x = static_cast<int8_t>(d(b.rng));
  for (auto &x : B)
    x = static_cast<int8_t>(d(b.rng));
  std::vector<int32_t> C(M * N), Cref(M * N);
  auto f = b.fn<int (*)(const int8_t *, const int8_t *, int32_t *, I, I, I)>("matmul_i8");
  b.measure(row, [&, f] { return f(A.data(), B.data(), C.data(), M, K, N); },
            {{"oneDNN", onednnMatmulS8(A.data(), B.data(), Cref.data(), M, K, N)}},
            compare(C.data(), Cref.data(), C.size()), {"", "matmul_i8", {M, K, N}});
}

// "bijk,jkl->bil" is one sgemm of (BT*I) x (J*K) by (J*K) x L.
void einsum(Bench &b) {
  I BT = 8, Id = 256, J = 32, K = 32, L = 512;
  Row row{fmt::format("einsum bijk,jkl {}x{}x{}x{}x{}", BT, Id, J, K, L), 2.0 * BT * Id * J * K * L, false};
  if (!b.wanted(row.name))
    return;
  Buffer X = b.random(BT * Id * J * K), W = b.random(J * K * L), Y(BT * Id * L), Yref(BT * Id * L);
  auto f = b.fn<int (*)(const float *, const float *, float *, I, I, I, I, I)>("einsum_bijk_jkl");
  b.measure(row, [&, f] { return f(X.data(), W.data(), Y.data(), BT, Id, J, K, L); },
            {{"OpenBLAS", openblasGemm(X.data(), W.data(), Yref.data(), BT * Id, J * K, L, 1.0f, 0.0f)}},
            haveOpenBlas() ? compare(Y.data(), Yref.data(), Y.size()) : nullptr, {"", "einsum", {BT, Id, J, K, L}});
}

void gemm(Bench &b) {
  I M = 1000, K = 1200, N = 1100;
  float alpha = 1.5f, beta = 0.5f;
  Row row{fmt::format("gemm alpha/beta {}x{}x{}", M, K, N), 2.0 * M * K * N, false};
  if (!b.wanted(row.name))
    return;
  Buffer A = b.random(M * K), B = b.random(K * N), C = b.random(M * N), Co(M * N), Cb = C;
  auto f = b.fn<int (*)(const float *, const float *, const float *, float, float, float *, I, I, I)>("gemm");
  // OpenBLAS updates Cb in place: its first call (the checked one) starts from C.
  b.measure(row, [&, f] { return f(A.data(), B.data(), C.data(), alpha, beta, Co.data(), M, K, N); },
            {{"OpenBLAS", openblasGemm(A.data(), B.data(), Cb.data(), M, K, N, alpha, beta)}},
            haveOpenBlas() ? compare(Co.data(), Cb.data(), Co.size()) : nullptr, {"", "gemm", {M, K, N}});
}

// The bare product (stdlib matmul) at the shape of an epilogue form: the
// epilogue's cost is the ratio of the two tkc rates.
void bareMatmul(Bench &b, I M, I K, I N) {
  Row row{fmt::format("matmul (bare) {}x{}x{}", M, K, N), 2.0 * M * K * N, false};
  if (!b.wanted(row.name))
    return;
  Buffer A = b.random(M * K), B = b.random(K * N), C(M * N), Cref(M * N);
  auto f = b.fn<int (*)(const float *, const float *, float *, I, I, I)>("matmul", b.linalg);
  b.measure(row, [&, f] { return f(A.data(), B.data(), C.data(), M, K, N); },
            {{"OpenBLAS", openblasGemm(A.data(), B.data(), Cref.data(), M, K, N, 1.0f, 0.0f)}},
            haveOpenBlas() ? compare(C.data(), Cref.data(), C.size()) : nullptr, {"", "matmul", {M, K, N}});
}

void syrk(Bench &b) {
  I M = 2048, K = 1024;
  // Useful flops: the lower triangle, diagonal included.
  Row row{fmt::format("syrk_lower {}x{}", M, K), double(M) * (M + 1) * K, false};
  if (!b.wanted(row.name))
    return;
  Buffer A = b.random(M * K), C(M * M), Cref(M * M, 0.0f);
  auto f = b.fn<int (*)(const float *, float *, I, I)>("syrk_lower");
  b.measure(row, [&, f] { return f(A.data(), C.data(), M, K); },
            {{"OpenBLAS", openblasSyrkLower(A.data(), Cref.data(), M, K)}},
            haveOpenBlas() ? compare(C.data(), Cref.data(), C.size()) : nullptr, {"", "syrk_lower", {M, K}});
}

void stencils(Bench &b) {
  I H = 4096, W = 4096;
  Row row2{fmt::format("stencil2d {}x{}", H, W), 8.0 * H * W, true};
  if (b.wanted(row2.name)) {
    Buffer X = b.random(H * W), Y(H * W), Yref(H * W);
    auto f = b.fn<int (*)(const float *, float *, I, I)>("stencil2d");
    auto c = reinterpret_cast<void (*)(const float *, float *, long, long)>(dlsym(b.cloops, "stencil2d_c"));
    b.measure(row2, [&, f] { return f(X.data(), Y.data(), H, W); },
              {{"gcc -O3", [&, c] { c(X.data(), Yref.data(), H, W); }}}, compare(Y.data(), Yref.data(), Y.size()),
              {"", "stencil2d", {H, W}});
  }
  I D = 256;
  Row row3{fmt::format("stencil3d {}x{}x{}", D, D, D), 8.0 * D * D * D, true};
  if (!b.wanted(row3.name))
    return;
  Buffer X = b.random(D * D * D), Y(D * D * D), Yref(D * D * D);
  auto f = b.fn<int (*)(const float *, float *, I, I, I)>("stencil3d");
  auto c = reinterpret_cast<void (*)(const float *, float *, long, long, long)>(dlsym(b.cloops, "stencil3d_c"));
  b.measure(row3, [&, f] { return f(X.data(), Y.data(), D, D, D); },
            {{"gcc -O3", [&, c] { c(X.data(), Yref.data(), D, D, D); }}}, compare(Y.data(), Yref.data(), Y.size()),
            {"", "stencil3d", {D, D, D}});
}

} // namespace

void measureAll(Bench &b) {
  attention(b, false);
  attention(b, true);
  bareMatmul(b, 2048, 1024, 4096);
  linear(b, Activation::Relu);
  linear(b, Activation::GeluTanh);
  mlp(b);
  rowOps(b);
  gelu(b);
  bmmNT(b);
  depthwise(b);
  matmulI8(b);
  einsum(b);
  bareMatmul(b, 1000, 1200, 1100);
  gemm(b);
  syrk(b);
  stencils(b);
}

} // namespace tk::bench
