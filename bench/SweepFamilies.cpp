#include "bench/SweepFamilies.h"

#include "bench/OpsBaselines.h"
#include "ir/Diagnostics.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace tk::bench {

int64_t shapeValue(const Shape &s, const std::string &name) {
  for (const auto &[n, v] : s)
    if (n == name) return v;
  throw InternalError("tk_construct_sweep: no " + name);
}

std::string shapeText(const Shape &s) {
  std::string out;
  for (const auto &[n, v] : s) out += fmt::format("{}{}={}", out.empty() ? "" : " ", n, v);
  return out;
}

namespace {

int64_t logUniform(std::mt19937_64 &rng, int64_t lo, int64_t hi) {
  std::uniform_real_distribution<double> d(std::log(double(lo)), std::log(double(hi) + 1));
  return std::clamp<int64_t>(int64_t(std::exp(d(rng))), lo, hi);
}

// A size for the correctness check: tiny, primes and 1 included.
int64_t tiny(std::mt19937_64 &rng) { return std::array<int64_t, 8>{1, 2, 3, 5, 7, 13, 17, 31}[rng() % 8]; }

// A draw between lo and hi, or tiny() (at most hi) for the check.
int64_t size(std::mt19937_64 &rng, bool small, int64_t lo, int64_t hi) {
  return small ? std::min(hi, tiny(rng)) : logUniform(rng, lo, hi);
}

// Pseudo-random inputs, the same for every run.
std::vector<float> random(size_t n, std::mt19937 &gen) {
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float &x : v) x = dist(gen);
  return v;
}

// c.inputs[i] for i = 0.. filled with `sizes` random values each.
void fill(PreparedCase &c, std::initializer_list<int64_t> sizes) {
  std::mt19937 gen(42);
  for (int64_t n : sizes) c.inputs.push_back(random(size_t(n), gen));
}

int64_t windows(int64_t extent, int64_t pad, int64_t window, int64_t stride) {
  return (extent + 2 * pad - window) / stride + 1;
}

Shape mm(int64_t M, int64_t K, int64_t N) { return Shape{{"M", M}, {"K", K}, {"N", N}}; }

// A random matrix product's shape, sizes 16..1024 (or tiny).
Shape randomMatmul(std::mt19937_64 &rng, bool small) {
  int64_t M = size(rng, small, 16, 1024), K = size(rng, small, 16, 1024); // in this order: the draws are
  return mm(M, K, size(rng, small, 16, 1024));                            // the original sweep's
}

SweepFamily matmul() {
  SweepFamily f{"matmul", "import \"std/linalg.tk\";\nexport matmul;\n", "matmul", {}, {}, {}};
  f.named = {{"BERT-base QKV", mm(128, 768, 2304)}, {"BERT-base attention out", mm(128, 768, 768)},
             {"BERT-base FFN up", mm(128, 768, 3072)}, {"BERT-base FFN down", mm(128, 3072, 768)},
             {"ResNet-50 fc", mm(1, 2048, 1000)}};
  f.random = randomMatmul;
  f.prepare = [](const Shape &s, void *fn, PreparedCase &c) {
    int64_t M = shapeValue(s, "M"), K = shapeValue(s, "K"), N = shapeValue(s, "N");
    fill(c, {M * K, K * N});
    c.got.assign(M * N, 0), c.want = c.got;
    auto k = reinterpret_cast<int (*)(const float *, const float *, float *, int64_t, int64_t, int64_t)>(fn);
    c.tkc = [=, &c] { return k(c.inputs[0].data(), c.inputs[1].data(), c.got.data(), M, K, N); };
    c.dnnl = onednnMatmul(c.inputs[0].data(), c.inputs[1].data(), c.want.data(), M, K, N);
    c.work = 2.0 * M * K * N;
  };
  return f;
}

Shape conv(int64_t N, int64_t C, int64_t H, int64_t F, int64_t R, int64_t stride, int64_t pad) {
  return {{"N", N}, {"C", C}, {"H", H}, {"W", H}, {"F", F}, {"R", R}, {"S", R}, {"stride", stride}, {"pad", pad},
          {"dilation", 1}};
}

SweepFamily conv2d() {
  SweepFamily f{"conv2d", "import \"std/nn.tk\";\nexport conv2d;\n", "conv2d", {}, {}, {}};
  f.named = {{"ResNet-50 stem 7x7/2", conv(1, 3, 224, 64, 7, 2, 3)},
             {"ResNet-50 conv2 1x1 64-64", conv(1, 64, 56, 64, 1, 1, 0)},
             {"ResNet-50 conv2 3x3", conv(1, 64, 56, 64, 3, 1, 1)},
             {"ResNet-50 conv2 1x1 64-256", conv(1, 64, 56, 256, 1, 1, 0)},
             {"ResNet-50 conv3 3x3/2", conv(1, 128, 56, 128, 3, 2, 1)},
             {"ResNet-50 conv3 downsample 1x1/2", conv(1, 256, 56, 512, 1, 2, 0)},
             {"ResNet-50 conv4 3x3", conv(1, 256, 14, 256, 3, 1, 1)},
             {"ResNet-50 conv5 3x3", conv(1, 512, 7, 512, 3, 1, 1)},
             {"MobileNet-V2 expand 1x1 16-96", conv(1, 16, 112, 96, 1, 1, 0)},
             {"MobileNet-V2 project 1x1 144-24", conv(1, 144, 56, 24, 1, 1, 0)},
             {"MobileNet-V2 project 1x1 576-96", conv(1, 576, 14, 96, 1, 1, 0)},
             {"MobileNet-V2 head 1x1 320-1280", conv(1, 320, 7, 1280, 1, 1, 0)}};
  // The original sweep's draws (kept so its 50 shapes stay the same).
  f.random = [](std::mt19937_64 &rng, bool small) {
    int64_t r = std::array<int64_t, 3>{1, 3, 5}[rng() % 3], h = size(rng, small, 8, 56);
    int64_t n = size(rng, small, 1, 4), c = size(rng, small, 8, 256), filters = size(rng, small, 8, 256);
    int64_t stride = 1 + int64_t(rng() % 2);
    return conv(n, c, std::max(h, r), filters, r, stride, r / 2);
  };
  f.prepare = [](const Shape &s, void *fn, PreparedCase &c) {
    int64_t N = shapeValue(s, "N"), C = shapeValue(s, "C"), H = shapeValue(s, "H"), W = shapeValue(s, "W"),
            F = shapeValue(s, "F"), R = shapeValue(s, "R"), st = shapeValue(s, "stride"), pad = shapeValue(s, "pad");
    int64_t OH = windows(H, pad, R, st), OW = windows(W, pad, R, st);
    fill(c, {N * C * H * W, F * C * R * R});
    c.got.assign(N * F * OH * OW, 0), c.want = c.got;
    auto k = reinterpret_cast<int (*)(const float *, const float *, int64_t, int64_t, int64_t, float *, int64_t,
                                      int64_t, int64_t, int64_t, int64_t, int64_t, int64_t)>(fn);
    c.tkc = [=, &c] { return k(c.inputs[0].data(), c.inputs[1].data(), st, pad, 1, c.got.data(), N, C, H, W, F, R, R); };
    c.dnnl = onednnConv2d(c.inputs[0].data(), c.inputs[1].data(), c.want.data(), N, C, H, W, F, R, R, st, pad);
    c.work = 2.0 * N * F * OH * OW * C * R * R;
  };
  return f;
}

SweepFamily depthwise(const std::string &benchOps) {
  SweepFamily f{"depthwise", fmt::format("import \"{}/windows.tk\";\nexport depthwise_conv;\n", benchOps),
                "depthwise_conv", {}, {}, {}};
  auto dw = [](int64_t N, int64_t C, int64_t H, int64_t R) {
    return Shape{{"N", N}, {"C", C}, {"H", H}, {"W", H}, {"R", R}, {"S", R}, {"pad", R / 2}};
  };
  f.named = {{"MobileNet-V2 dw 32 112", dw(1, 32, 112, 3)}, {"MobileNet-V2 dw 144 56", dw(1, 144, 56, 3)},
             {"MobileNet-V2 dw 192 28", dw(1, 192, 28, 3)}, {"MobileNet-V2 dw 576 14", dw(1, 576, 14, 3)},
             {"MobileNet-V2 dw 960 7", dw(1, 960, 7, 3)}};
  f.random = [=](std::mt19937_64 &rng, bool small) {
    int64_t r = rng() % 2 ? 3 : 5, n = size(rng, small, 1, 4), c = size(rng, small, 8, 512);
    return dw(n, c, std::max(r, size(rng, small, 7, 112)), r);
  };
  f.prepare = [](const Shape &s, void *fn, PreparedCase &c) {
    int64_t N = shapeValue(s, "N"), C = shapeValue(s, "C"), H = shapeValue(s, "H"), W = shapeValue(s, "W"),
            R = shapeValue(s, "R"), pad = shapeValue(s, "pad");
    int64_t OH = windows(H, pad, R, 1), OW = windows(W, pad, R, 1);
    fill(c, {N * C * H * W, C * R * R});
    c.got.assign(N * C * OH * OW, 0), c.want = c.got;
    auto k = reinterpret_cast<int (*)(const float *, const float *, int64_t, float *, int64_t, int64_t, int64_t,
                                      int64_t, int64_t, int64_t)>(fn);
    c.tkc = [=, &c] { return k(c.inputs[0].data(), c.inputs[1].data(), pad, c.got.data(), N, C, H, W, R, R); };
    c.dnnl = onednnDepthwise(c.inputs[0].data(), c.inputs[1].data(), c.want.data(), N, C, H, W, R, R, pad);
    c.work = 2.0 * N * C * OH * OW * R * R;
  };
  return f;
}

// int8 products accumulating in i32 (bench/ops/contractions.tk), against
// oneDNN's s8 x s8 -> s32 matmul.
SweepFamily matmulI8(const std::string &benchOps) {
  SweepFamily f{"matmul_i8", fmt::format("import \"{}/contractions.tk\";\nexport matmul_i8;\n", benchOps),
                "matmul_i8", {}, {}, {}};
  f.named = {{"BERT-base QKV, int8", mm(128, 768, 2304)}, {"BERT-base FFN down, int8", mm(128, 3072, 768)},
             {"ResNet-50 fc, int8", mm(1, 2048, 1000)}};
  f.random = randomMatmul;
  f.prepare = [](const Shape &s, void *fn, PreparedCase &c) {
    int64_t M = shapeValue(s, "M"), K = shapeValue(s, "K"), N = shapeValue(s, "N");
    std::mt19937 gen(42);
    for (int64_t n : {M * K, K * N}) {
      c.bytes.emplace_back(size_t(n));
      for (int8_t &b : c.bytes.back()) b = int8_t(int(gen() % 256) - 128);
    }
    c.gotInt.assign(M * N, 0), c.wantInt = c.gotInt;
    auto k = reinterpret_cast<int (*)(const int8_t *, const int8_t *, int32_t *, int64_t, int64_t, int64_t)>(fn);
    c.tkc = [=, &c] { return k(c.bytes[0].data(), c.bytes[1].data(), c.gotInt.data(), M, K, N); };
    c.dnnl = onednnMatmulS8(c.bytes[0].data(), c.bytes[1].data(), c.wantInt.data(), M, K, N);
    c.work = 2.0 * M * K * N;
  };
  return f;
}

SweepFamily gemv() {
  SweepFamily f{"gemv", "import \"std/linalg.tk\";\nexport gemv;\n", "gemv", {}, {}, {}};
  auto mv = [](int64_t M, int64_t N) { return Shape{{"M", M}, {"N", N}}; };
  f.named = {{"BERT-base FFN up, one token", mv(3072, 768)}, {"BERT-base FFN down, one token", mv(768, 3072)},
             {"ResNet-50 fc, one image", mv(1000, 2048)}};
  f.random = [=](std::mt19937_64 &rng, bool small) {
    int64_t M = size(rng, small, 16, 4096);
    return mv(M, size(rng, small, 16, 4096));
  };
  f.prepare = [](const Shape &s, void *fn, PreparedCase &c) {
    int64_t M = shapeValue(s, "M"), N = shapeValue(s, "N");
    fill(c, {M * N, N});
    c.got.assign(M, 0), c.want = c.got;
    auto k = reinterpret_cast<int (*)(const float *, const float *, float *, int64_t, int64_t)>(fn);
    c.tkc = [=, &c] { return k(c.inputs[0].data(), c.inputs[1].data(), c.got.data(), M, N); };
    c.dnnl = onednnMatmul(c.inputs[0].data(), c.inputs[1].data(), c.want.data(), M, N, 1);
    c.work = 4.0 * (M * N + N + M);
    c.memoryBound = true;
  };
  return f;
}

SweepFamily bmm() {
  SweepFamily f{"bmm", "import \"std/linalg.tk\";\nexport bmm;\n", "bmm", {}, {}, {}};
  auto b = [](int64_t BT, int64_t M, int64_t K, int64_t N) { return Shape{{"BT", BT}, {"M", M}, {"K", K}, {"N", N}}; };
  f.named = {{"BERT-base scores Q Kt", b(12, 128, 64, 128)}, {"BERT-base context P V", b(12, 128, 128, 64)}};
  f.random = [=](std::mt19937_64 &rng, bool small) {
    int64_t BT = size(rng, small, 1, 32), M = size(rng, small, 8, 512), K = size(rng, small, 8, 512);
    return b(BT, M, K, size(rng, small, 8, 512));
  };
  f.prepare = [](const Shape &s, void *fn, PreparedCase &c) {
    int64_t BT = shapeValue(s, "BT"), M = shapeValue(s, "M"), K = shapeValue(s, "K"), N = shapeValue(s, "N");
    fill(c, {BT * M * K, BT * K * N});
    // oneDNN's batched product reads B transposed: the same values, [BT, N, K].
    std::vector<float> bt(size_t(BT * N * K));
    for (int64_t t = 0; t < BT; ++t)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t n = 0; n < N; ++n) bt[(t * N + n) * K + k] = c.inputs[1][(t * K + k) * N + n];
    c.inputs.push_back(std::move(bt));
    c.got.assign(BT * M * N, 0), c.want = c.got;
    auto k = reinterpret_cast<int (*)(const float *, const float *, float *, int64_t, int64_t, int64_t, int64_t)>(fn);
    c.tkc = [=, &c] { return k(c.inputs[0].data(), c.inputs[1].data(), c.got.data(), BT, M, K, N); };
    c.dnnl = onednnBmmNT(c.inputs[0].data(), c.inputs[2].data(), c.want.data(), BT, M, K, N);
    c.work = 2.0 * BT * M * K * N;
  };
  return f;
}

SweepFamily avgpool() {
  SweepFamily f{"avgpool2d", "import \"std/nn.tk\";\nexport avgpool2d;\n", "avgpool2d", {}, {}, {}};
  auto p = [](int64_t N, int64_t C, int64_t H, int64_t k, int64_t stride, int64_t pad) {
    return Shape{{"N", N}, {"C", C}, {"H", H}, {"W", H}, {"kernel", k}, {"stride", stride}, {"pad", pad}};
  };
  f.named = {{"ResNet-50 stem pool 3x3/2", p(1, 64, 112, 3, 2, 1)}, {"ResNet-50 global pool 7x7", p(1, 2048, 7, 7, 1, 0)},
             {"MobileNet-V2 global pool 7x7", p(1, 1280, 7, 7, 1, 0)}};
  f.random = [=](std::mt19937_64 &rng, bool small) {
    int64_t k = 2 + int64_t(rng() % 2), stride = 1 + int64_t(rng() % 2), n = size(rng, small, 1, 4);
    int64_t c = size(rng, small, 8, 256), h = std::max(k, size(rng, small, 7, 112));
    return p(n, c, h, k, stride, int64_t(rng() % 2) * (k / 2));
  };
  f.prepare = [](const Shape &s, void *fn, PreparedCase &c) {
    int64_t N = shapeValue(s, "N"), C = shapeValue(s, "C"), H = shapeValue(s, "H"), W = shapeValue(s, "W"),
            k = shapeValue(s, "kernel"), st = shapeValue(s, "stride"), pad = shapeValue(s, "pad");
    int64_t OH = windows(H, pad, k, st), OW = windows(W, pad, k, st);
    fill(c, {N * C * H * W});
    c.got.assign(N * C * OH * OW, 0), c.want = c.got;
    auto fk = reinterpret_cast<int (*)(const float *, int64_t, int64_t, int64_t, float *, int64_t, int64_t, int64_t,
                                       int64_t)>(fn);
    c.tkc = [=, &c] { return fk(c.inputs[0].data(), k, st, pad, c.got.data(), N, C, H, W); };
    c.dnnl = onednnAvgPool2d(c.inputs[0].data(), c.want.data(), N, C, H, W, k, st, pad);
    c.work = 4.0 * (N * C * H * W + N * C * OH * OW);
    c.memoryBound = true;
  };
  return f;
}

SweepFamily rows(bool layernorm) {
  std::string name = layernorm ? "layernorm" : "softmax";
  SweepFamily f{name, fmt::format("import \"std/nn.tk\";\nexport {};\n", name), name, {}, {}, {}};
  auto mn = [](int64_t M, int64_t N) { return Shape{{"M", M}, {"N", N}}; };
  if (layernorm) f.named = {{"BERT-base layer norm", mn(128, 768)}, {"BERT-base layer norm, batch 8", mn(1024, 768)}};
  else f.named = {{"BERT-base attention softmax", mn(12 * 128, 128)}, {"BERT-base softmax, seq 512", mn(12 * 512, 512)}};
  f.random = [=](std::mt19937_64 &rng, bool small) {
    int64_t M = size(rng, small, 16, 8192);
    return mn(M, size(rng, small, 16, 4096));
  };
  f.prepare = [layernorm](const Shape &s, void *fn, PreparedCase &c) {
    int64_t M = shapeValue(s, "M"), N = shapeValue(s, "N");
    c.got.assign(M * N, 0), c.want = c.got;
    c.work = 8.0 * M * N;
    c.memoryBound = true;
    if (!layernorm) {
      fill(c, {M * N});
      auto k = reinterpret_cast<int (*)(const float *, float *, int64_t, int64_t)>(fn);
      c.tkc = [=, &c] { return k(c.inputs[0].data(), c.got.data(), M, N); };
      c.dnnl = onednnSoftmax(c.inputs[0].data(), c.want.data(), M, N);
      return;
    }
    fill(c, {M * N, N, N});
    constexpr float eps = 1e-5f;
    auto k = reinterpret_cast<int (*)(const float *, const float *, const float *, float, float *, int64_t, int64_t)>(fn);
    c.tkc = [=, &c] { return k(c.inputs[0].data(), c.inputs[1].data(), c.inputs[2].data(), eps, c.got.data(), M, N); };
    c.dnnl = onednnLayerNorm(c.inputs[0].data(), c.inputs[1].data(), c.inputs[2].data(), c.want.data(), M, N, eps);
  };
  return f;
}

} // namespace

std::vector<SweepFamily> sweepFamilies(const std::string &benchOps) {
  return {matmul(), conv2d(), gemv(), bmm(), depthwise(benchOps), avgpool(), rows(false), rows(true),
          matmulI8(benchOps)};
}

} // namespace tk::bench
