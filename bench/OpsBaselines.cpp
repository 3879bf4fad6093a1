#include "bench/OpsBaselines.h"
#include "bench/OneDnnEngine.h"

#include <dnnl.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>
#ifdef TK_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace tk::bench {

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

// oneDNN's memory objects take non-const handles; it never writes sources.
memory mem(const memory::desc &d, const void *p) { return memory(d, onednnEngine(), const_cast<void *>(p)); }

using Args = std::unordered_map<int, memory>;

// A run of primitives, in order, each with its arguments, on one stream.
Run sequence(std::vector<std::pair<dnnl::primitive, Args>> steps) {
  return [steps = std::move(steps)]() {
    dnnl::stream s(onednnEngine());
    for (const auto &[prim, args] : steps)
      prim.execute(s, args);
    s.wait();
  };
}

dnnl::algorithm algorithmOf(Activation act) {
  return act == Activation::Relu ? dnnl::algorithm::eltwise_relu : dnnl::algorithm::eltwise_gelu_tanh;
}

// A matmul X[M, K] W[K, N] (+ b) with optional eltwise post-op.
std::pair<dnnl::primitive, Args> matmulStep(const float *X, const float *W, const float *b, float *Y, int64_t M,
                                            int64_t K, int64_t N, const Activation *act) {
  memory::desc x({M, K}, dt::f32, tag::ab), w({K, N}, dt::f32, tag::ab), y({M, N}, dt::f32, tag::ab);
  memory::desc bias = b ? memory::desc({1, N}, dt::f32, tag::ab) : memory::desc();
  dnnl::primitive_attr attr;
  if (act) {
    dnnl::post_ops po;
    po.append_eltwise(1.f, algorithmOf(*act), 0.f, 0.f);
    attr.set_post_ops(po);
  }
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(x, w, bias, y), attr, onednnEngine());
  Args args{{DNNL_ARG_SRC, mem(x, X)}, {DNNL_ARG_WEIGHTS, mem(w, W)}, {DNNL_ARG_DST, mem(y, Y)}};
  if (b)
    args.insert({DNNL_ARG_BIAS, mem(bias, b)});
  return {dnnl::matmul(pd), args};
}

} // namespace

Run onednnLinear(const float *X, const float *W, const float *b, float *Y, int64_t M, int64_t K, int64_t N,
                 Activation act) {
  return sequence({matmulStep(X, W, b, Y, M, K, N, &act)});
}

Run onednnMlp(const float *X, const float *W1, const float *b1, const float *W2, const float *b2, float *Y, int64_t M,
              int64_t K, int64_t H, int64_t N) {
  auto hidden = std::make_shared<std::vector<float>>(M * H);
  Activation gelu = Activation::GeluTanh;
  Run run = sequence(
      {matmulStep(X, W1, b1, hidden->data(), M, K, H, &gelu), matmulStep(hidden->data(), W2, b2, Y, M, H, N, nullptr)});
  return [run, hidden] { run(); };
}

Run onednnAttention(const float *Q, const float *K, const float *V, float *O, int64_t S, int64_t T, int64_t D,
                    float scale, bool causal) {
  auto scores = std::make_shared<std::vector<float>>(S * T);
  auto mask = std::make_shared<std::vector<float>>(causal ? S * T : 0);
  for (int64_t i = 0; causal && i < S; ++i)
    for (int64_t j = 0; j < T; ++j)
      (*mask)[i * T + j] = j <= i ? 0.f : -std::numeric_limits<float>::infinity();
  memory::desc q({S, D}, dt::f32, tag::ab), kt({D, T}, dt::f32, tag::ba), s({S, T}, dt::f32, tag::ab),
      v({T, D}, dt::f32, tag::ab), o({S, D}, dt::f32, tag::ab);
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {scale});
  Args first{{DNNL_ARG_SRC, mem(q, Q)}, {DNNL_ARG_WEIGHTS, mem(kt, K)}, {DNNL_ARG_DST, mem(s, scores->data())}};
  if (causal) {
    dnnl::post_ops po;
    po.append_binary(dnnl::algorithm::binary_add, s);
    attr.set_post_ops(po);
    first.insert({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, mem(s, mask->data())});
  }
  dnnl::matmul::primitive_desc qk(dnnl::matmul::desc(q, kt, s), attr, onednnEngine());
  dnnl::softmax_forward::primitive_desc sm(dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, s, 1),
                                           onednnEngine());
  dnnl::matmul::primitive_desc pv(dnnl::matmul::desc(s, v, o), onednnEngine());
  memory sm_mem = mem(s, scores->data());
  Run run = sequence(
      {{dnnl::matmul(qk), first},
       {dnnl::softmax_forward(sm), Args{{DNNL_ARG_SRC, sm_mem}, {DNNL_ARG_DST, sm_mem}}},
       {dnnl::matmul(pv), Args{{DNNL_ARG_SRC, sm_mem}, {DNNL_ARG_WEIGHTS, mem(v, V)}, {DNNL_ARG_DST, mem(o, O)}}}});
  return [run, scores, mask] { run(); };
}

Run onednnLayerNorm(const float *X, const float *gamma, const float *beta, float *Y, int64_t M, int64_t N, float eps) {
  memory::desc x({M, N}, dt::f32, tag::ab), g({N}, dt::f32, tag::a);
  auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::primitive_desc pd(
      dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_inference, x, eps, flags), onednnEngine());
  return sequence({{dnnl::layer_normalization_forward(pd), Args{{DNNL_ARG_SRC, mem(x, X)},
                                                                {DNNL_ARG_DST, mem(x, Y)},
                                                                {DNNL_ARG_SCALE, mem(g, gamma)},
                                                                {DNNL_ARG_SHIFT, mem(g, beta)}}}});
}

Run onednnSoftmax(const float *X, float *Y, int64_t M, int64_t N) {
  memory::desc x({M, N}, dt::f32, tag::ab);
  dnnl::softmax_forward::primitive_desc pd(dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, x, 1),
                                           onednnEngine());
  return sequence({{dnnl::softmax_forward(pd), Args{{DNNL_ARG_SRC, mem(x, X)}, {DNNL_ARG_DST, mem(x, Y)}}}});
}

Run onednnGeluTanh(const float *X, float *Y, int64_t N) {
  memory::desc x({N}, dt::f32, tag::a);
  dnnl::eltwise_forward::primitive_desc pd(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_gelu_tanh, x, 0.f, 0.f),
      onednnEngine());
  return sequence({{dnnl::eltwise_forward(pd), Args{{DNNL_ARG_SRC, mem(x, X)}, {DNNL_ARG_DST, mem(x, Y)}}}});
}

Run onednnBmmNT(const float *A, const float *B, float *C, int64_t BT, int64_t M, int64_t K, int64_t N) {
  memory::desc a({BT, M, K}, dt::f32, tag::abc), b({BT, K, N}, dt::f32, tag::acb), c({BT, M, N}, dt::f32, tag::abc);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), onednnEngine());
  return sequence(
      {{dnnl::matmul(pd), Args{{DNNL_ARG_SRC, mem(a, A)}, {DNNL_ARG_WEIGHTS, mem(b, B)}, {DNNL_ARG_DST, mem(c, C)}}}});
}

Run onednnDepthwise(const float *X, const float *W, float *O, int64_t N, int64_t C, int64_t H, int64_t Wd, int64_t R,
                    int64_t S, int64_t pad) {
  int64_t OH = H + 2 * pad - R + 1, OW = Wd + 2 * pad - S + 1;
  memory::desc x({N, C, H, Wd}, dt::f32, tag::nchw), w({C, 1, 1, R, S}, dt::f32, tag::goihw),
      o({N, C, OH, OW}, dt::f32, tag::nchw);
  dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x, w, o,
                                    {1, 1}, {pad, pad}, {pad, pad});
  dnnl::convolution_forward::primitive_desc pd(d, onednnEngine());
  return sequence({{dnnl::convolution_forward(pd),
                    Args{{DNNL_ARG_SRC, mem(x, X)}, {DNNL_ARG_WEIGHTS, mem(w, W)}, {DNNL_ARG_DST, mem(o, O)}}}});
}

Run onednnMatmulS8(const int8_t *A, const int8_t *B, int32_t *C, int64_t M, int64_t K, int64_t N) {
  memory::desc a({M, K}, dt::s8, tag::ab), b({K, N}, dt::s8, tag::ab), c({M, N}, dt::s32, tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), onednnEngine());
  return sequence(
      {{dnnl::matmul(pd), Args{{DNNL_ARG_SRC, mem(a, A)}, {DNNL_ARG_WEIGHTS, mem(b, B)}, {DNNL_ARG_DST, mem(c, C)}}}});
}

#ifdef TK_BENCH_HAVE_OPENBLAS
std::string openblasCoreName() { return openblas_get_corename(); }
Run openblasGemm(const float *A, const float *B, float *C, int64_t M, int64_t K, int64_t N, float alpha, float beta) {
  return [=] { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, A, K, B, N, beta, C, N); };
}
Run openblasSyrkLower(const float *A, float *C, int64_t M, int64_t K) {
  return [=] { cblas_ssyrk(CblasRowMajor, CblasLower, CblasNoTrans, M, K, 1.0f, A, K, 0.0f, C, M); };
}
#else
std::string openblasCoreName() { return "none"; }
Run openblasGemm(const float *, const float *, float *, int64_t, int64_t, int64_t, float, float) { return {}; }
Run openblasSyrkLower(const float *, float *, int64_t, int64_t) { return {}; }
#endif

} // namespace tk::bench
