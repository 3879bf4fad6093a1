#include "bench/Baselines.h"
#include "bench/OneDnnEngine.h"

#include <dnnl.hpp>
#include <omp.h>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#ifdef TK_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace tk::bench {

dnnl::engine &onednnEngine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

} // namespace

void setBaselineThreads(int threads) {
  omp_set_num_threads(threads);
#ifdef TK_BENCH_HAVE_OPENBLAS
  openblas_set_num_threads(threads);
#endif
}

void execWithPassiveOpenMp(char **argv) {
  if (getenv("OMP_WAIT_POLICY")) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);
  perror("execv /proc/self/exe"); // not re-executed: continue with spinning workers
}

Run onednnMatmul(const float *A, const float *B, float *C, int64_t M, int64_t K, int64_t N) {
  memory::desc a({M, K}, dt::f32, tag::ab), b({K, N}, dt::f32, tag::ab), c({M, N}, dt::f32, tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), onednnEngine());
  // oneDNN's memory objects take non-const handles; it never writes sources.
  memory am(a, onednnEngine(), const_cast<float *>(A)), bm(b, onednnEngine(), const_cast<float *>(B)), cm(c, onednnEngine(), C);
  dnnl::matmul prim(pd);
  return [=]() mutable {
    dnnl::stream s(onednnEngine());
    prim.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    s.wait();
  };
}

Run onednnConv2d(const float *X, const float *W, float *O, int64_t N, int64_t C, int64_t H, int64_t Wd,
                 int64_t F, int64_t R, int64_t S, int64_t stride, int64_t pad) {
  int64_t OH = (H + 2 * pad - R) / stride + 1, OW = (Wd + 2 * pad - S) / stride + 1;
  memory::desc x({N, C, H, Wd}, dt::f32, tag::nchw), w({F, C, R, S}, dt::f32, tag::oihw),
      o({N, F, OH, OW}, dt::f32, tag::nchw);
  dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x, w,
                                    o, {stride, stride}, {pad, pad}, {pad, pad});
  dnnl::convolution_forward::primitive_desc pd(d, onednnEngine());
  memory xm(x, onednnEngine(), const_cast<float *>(X)), wm(w, onednnEngine(), const_cast<float *>(W)), om(o, onednnEngine(), O);
  dnnl::convolution_forward prim(pd);
  return [=]() mutable {
    dnnl::stream s(onednnEngine());
    prim.execute(s, {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, om}});
    s.wait();
  };
}

Run onednnAvgPool2d(const float *X, float *Y, int64_t N, int64_t C, int64_t H, int64_t Wd, int64_t kernel,
                    int64_t stride, int64_t pad) {
  int64_t OH = (H + 2 * pad - kernel) / stride + 1, OW = (Wd + 2 * pad - kernel) / stride + 1;
  memory::desc x({N, C, H, Wd}, dt::f32, tag::nchw), y({N, C, OH, OW}, dt::f32, tag::nchw);
  dnnl::pooling_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_avg_include_padding, x,
                                y, {stride, stride}, {kernel, kernel}, {pad, pad}, {pad, pad});
  dnnl::pooling_forward::primitive_desc pd(d, onednnEngine());
  memory xm(x, onednnEngine(), const_cast<float *>(X)), ym(y, onednnEngine(), Y);
  dnnl::pooling_forward prim(pd);
  return [=]() mutable {
    dnnl::stream s(onednnEngine());
    prim.execute(s, {{DNNL_ARG_SRC, xm}, {DNNL_ARG_DST, ym}});
    s.wait();
  };
}

#ifdef TK_BENCH_HAVE_OPENBLAS
bool haveOpenBlas() { return true; }
Run openblasMatmul(const float *A, const float *B, float *C, int64_t M, int64_t K, int64_t N) {
  return [=] { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N); };
}
Run openblasGemv(const float *A, const float *x, float *y, int64_t M, int64_t N) {
  return [=] { cblas_sgemv(CblasRowMajor, CblasNoTrans, M, N, 1.0f, A, N, x, 1, 0.0f, y, 1); };
}
#else
bool haveOpenBlas() { return false; }
Run openblasMatmul(const float *, const float *, float *, int64_t, int64_t, int64_t) { return {}; }
Run openblasGemv(const float *, const float *, float *, int64_t, int64_t) { return {}; }
#endif

} // namespace tk::bench
