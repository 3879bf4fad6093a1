// tk_gpu_warp_run SOURCE_DIR: runs the warp-shuffle and atomic kernels of
// stdlib/gpu/warp_reduce.tk and the row kernels of stdlib/gpu/row_blocks.tk
// on device 0 and checks them against the
// reference interpreter (ir/Interpreter) evaluating the ops they implement,
// on random inputs with row lengths that are not multiples of 32 and
// element counts that leave partial blocks. The interpreter evaluates what
// an op means, never a kernel, so the shuffles and atomics themselves need
// no interpretation: the check is that the kernels compute the op.
// Exits 77 (ctest: skipped) when there is no CUDA driver or device.
#include "row_blocks.h"
#include "warp_reduce.h"

#include "frontend/Frontend.h"
#include "ir/Interpreter.h"
#include "tkrt_cuda.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

namespace ir = tk::ir;

namespace {

int failures = 0;
std::mt19937 rng(1);

std::vector<double> randomValues(size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(n);
  for (double &x : v) x = static_cast<float>(d(rng));
  return v;
}

void check(const char *what, int status) {
  if (status == 0) return;
  std::fprintf(stderr, "%s returned status %d\n", what, status);
  std::exit(1);
}

template <typename T> void *toDevice(const std::vector<double> &v) {
  std::vector<T> h(v.begin(), v.end());
  void *d = nullptr;
  check("alloc", tkrt_cuda_alloc(&d, static_cast<int64_t>(h.size() * sizeof(T)), nullptr));
  check("copy", tkrt_cuda_memcpy_to_device(d, h.data(), h.size() * sizeof(T)));
  return d;
}

// Compares device tensor `dev` (n elements of T) with the interpreter's
// values: within 4x its first-order error bound plus 1e-6 relative (the
// GPU's exp is ex2.approx, docs/gpu.md); integers exactly.
template <typename T>
void compare(const std::string &what, void *dev, const ir::InterpResult &ref, const std::string &tensor) {
  const std::vector<double> &want = ref.tensors.at(tensor), &bound = ref.errorBounds.at(tensor);
  std::vector<T> got(want.size());
  check("synchronize", tkrt_cuda_synchronize(nullptr));
  check("copy back", tkrt_cuda_memcpy_to_host(got.data(), dev, got.size() * sizeof(T)));
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    double tol = 4 * bound[i] + 1e-6 * (1 + std::fabs(want[i]));
    if (!(err <= tol)) ++bad;
    worst = std::max(worst, err / (1 + std::fabs(want[i])));
  }
  std::printf("%-34s n=%-8zu max rel err %.3g %s\n", what.c_str(), want.size(), worst, bad ? "FAIL" : "ok");
  failures += bad != 0;
  tkrt_cuda_free(dev, nullptr);
}

using ir::InterpArgs;

void rowKernels(const ir::Module &m, int64_t M, int64_t N) {
  InterpArgs a;
  a.symbols = {{"M", M}, {"N", N}};
  a.tensors["X"] = randomValues(static_cast<size_t>(M * N), -4, 4);
  a.tensors["gamma"] = randomValues(static_cast<size_t>(N), 0.5, 1.5);
  a.tensors["beta"] = randomValues(static_cast<size_t>(N), -1, 1);
  a.scalars["eps"] = 1e-5;
  std::string shape = fmt::format(" {}x{}", M, N);
  void *X = toDevice<float>(a.tensors["X"]), *g = toDevice<float>(a.tensors["gamma"]),
       *b = toDevice<float>(a.tensors["beta"]), *Y = nullptr;
  auto out = [&](int64_t n) {
    check("alloc", tkrt_cuda_alloc(&Y, n * 4, nullptr));
    return static_cast<float *>(Y);
  };
  const float *x = static_cast<const float *>(X);
  check("row_sum_warp", row_sum_warp(x, out(M), M, N, nullptr));
  compare<float>("row_sum_warp" + shape, Y, ir::interpret(*m.findOp("row_sum"), a), "Y");
  check("softmax_warp", softmax_warp(x, out(M * N), M, N, nullptr));
  compare<float>("softmax_warp" + shape, Y, ir::interpret(*m.findOp("softmax"), a), "Y");
  check("layernorm_warp", layernorm_warp(x, static_cast<const float *>(g), static_cast<const float *>(b), 1e-5f,
                                         out(M * N), M, N, nullptr));
  compare<float>("layernorm_warp" + shape, Y, ir::interpret(*m.findOp("layernorm"), a), "Y");
  using RowFn = int (*)(const float *, float *, int64_t, int64_t, void *);
  for (auto [name, fn] : {std::pair<const char *, RowFn>{"softmax_4warps", softmax_4warps},
                          {"softmax_8warps", softmax_8warps}, {"softmax_block", softmax_block}}) {
    check(name, fn(x, out(M * N), M, N, nullptr));
    compare<float>(name + shape, Y, ir::interpret(*m.findOp("softmax"), a), "Y");
  }
  using NormFn = int (*)(const float *, const float *, const float *, float, float *, int64_t, int64_t, void *);
  for (auto [name, fn] : {std::pair<const char *, NormFn>{"layernorm_4warps", layernorm_4warps},
                          {"layernorm_8warps", layernorm_8warps}, {"layernorm_block", layernorm_block}}) {
    check(name, fn(x, static_cast<const float *>(g), static_cast<const float *>(b), 1e-5f, out(M * N), M, N, nullptr));
    compare<float>(name + shape, Y, ir::interpret(*m.findOp("layernorm"), a), "Y");
  }
  for (void *p : {X, g, b}) tkrt_cuda_free(p, nullptr);
}

void atomicKernels(const ir::Module &m, int64_t N, int64_t B) {
  InterpArgs a;
  a.symbols = {{"N", N}};
  a.tensors["X"] = randomValues(static_cast<size_t>(N), -1, 1);
  void *X = toDevice<float>(a.tensors["X"]), *S = nullptr;
  check("alloc", tkrt_cuda_alloc(&S, 4, nullptr));
  check("total_atomic", total_atomic(static_cast<const float *>(X), static_cast<float *>(S), N, nullptr));
  compare<float>(fmt::format("total_atomic {}", N), S, ir::interpret(*m.findOp("total"), a), "S");
  tkrt_cuda_free(X, nullptr);

  // Values from -3 to B + 2: some fall outside the bins and must count nowhere.
  InterpArgs h;
  h.symbols = {{"N", N}};
  h.scalars["B"] = static_cast<double>(B);
  std::uniform_int_distribution<int> d(-3, static_cast<int>(B) + 2);
  h.tensors["X"].resize(static_cast<size_t>(N));
  for (double &v : h.tensors["X"]) v = d(rng);
  void *Xi = toDevice<int32_t>(h.tensors["X"]), *H = nullptr;
  check("alloc", tkrt_cuda_alloc(&H, B * 4, nullptr));
  check("histogram_atomic",
        histogram_atomic(static_cast<const int32_t *>(Xi), B, static_cast<int32_t *>(H), N, nullptr));
  compare<int32_t>(fmt::format("histogram_atomic {} into {}", N, B), H,
                   ir::interpret(*m.findOp("histogram"), h), "H");
  tkrt_cuda_free(Xi, nullptr);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tk_gpu_warp_run SOURCE_DIR\n");
    return 2;
  }
  int s = tkrt_cuda_init();
  if (s == TKRT_CUDA_NO_DRIVER || s == TKRT_CUDA_NO_DEVICE) {
    std::printf("SKIP: no CUDA %s (status %d)\n", s == TKRT_CUDA_NO_DRIVER ? "driver" : "device", s);
    return 77;
  }
  check("tkrt_cuda_init", s);
  std::string src = argv[1];
  tk::SourceManager sm;
  tk::DiagEngine diags(sm);
  tk::FrontendOptions fo;
  fo.stdlibDir = src + "/stdlib";
  fo.target = tk::ir::TargetFamily::Cuda;
  auto m = tk::buildModule(src + "/stdlib/gpu/warp_reduce.tk", fo, sm, diags);
  if (!m) return 1;
  for (auto [M, N] : std::initializer_list<std::pair<int64_t, int64_t>>{{37, 1001}, {64, 32}, {1, 7}, {300, 4096}, {5, 3001}})
    rowKernels(*m, M, N);
  for (auto [N, B] : std::initializer_list<std::pair<int64_t, int64_t>>{{100003, 37}, {1024, 300}, {5, 1}})
    atomicKernels(*m, N, B);
  return failures ? 1 : 0;
}
