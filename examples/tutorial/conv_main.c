/* conv_main.c - the driver of the convolution lesson (8) of the tutorial.
 *
 *   conv_main [--check] [N C H W F R S stride pad]...
 *             (default: 1 64 56 56 64 3 3 1 1, a ResNet-50 3x3 layer)
 *
 * Runs std/nn.tk's conv2d (NCHW image, FCRS filter, dilation 1) three ways
 * on the same random inputs: the lesson's kernel (LESSON_FN, lesson.h),
 * tkc's automatic schedule (conv2d with no kernel, auto.h) and oneDNN's
 * direct convolution on the same plain nchw / oihw layouts. Each result is
 * compared with a double-precision reference; GFLOP/s of the median run.
 * Exit status 1 if any result is wrong. --check: correctness only. */
#include "tutorial.h"

#include "auto.h"   /* int conv2d(X, Wt, stride, pad, dilation, O, N, C, H, W, F, R, S) */
#include "lesson.h" /* the same signature under the lesson kernel's name */

#include <dnnl.h>

#ifndef LESSON_FN
#error "compile with -DLESSON_FN=<the lesson's kernel name>"
#endif
#define TUT_STR2(x) #x
#define TUT_STR(x) TUT_STR2(x)

typedef struct {
  const float *X, *Wt;
  float *O;
  int64_t N, C, H, W, F, R, S, stride, pad;
  dnnl_primitive_t prim; /* oneDNN's convolution for this shape, or NULL */
  dnnl_stream_t stream;
  dnnl_memory_t mem[3];
} conv_args;

static int call_lesson(void *p) {
  conv_args *a = p;
  return LESSON_FN(a->X, a->Wt, a->stride, a->pad, 1, a->O, a->N, a->C, a->H, a->W, a->F, a->R, a->S);
}
static int call_auto(void *p) {
  conv_args *a = p;
  return conv2d(a->X, a->Wt, a->stride, a->pad, 1, a->O, a->N, a->C, a->H, a->W, a->F, a->R, a->S);
}
static int call_onednn(void *p) {
  conv_args *a = p;
  if (!a->prim) return 99;
  dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, a->mem[0]}, {DNNL_ARG_WEIGHTS, a->mem[1]}, {DNNL_ARG_DST, a->mem[2]}};
  if (dnnl_primitive_execute(a->prim, a->stream, 3, args) != dnnl_success) return 98;
  return dnnl_stream_wait(a->stream) == dnnl_success ? 0 : 97;
}

/* oneDNN's forward-inference direct convolution on plain layouts (what the
 * tkc functions take), without bias. Leaves a->prim NULL on failure. */
static void onednn_setup(conv_args *a, dnnl_engine_t eng, int64_t OH, int64_t OW) {
  dnnl_memory_desc_t x, w, o;
  dnnl_dims_t xd = {a->N, a->C, a->H, a->W}, wd = {a->F, a->C, a->R, a->S}, od = {a->N, a->F, OH, OW};
  dnnl_dims_t strides = {a->stride, a->stride}, pad = {a->pad, a->pad};
  dnnl_convolution_desc_t d;
  dnnl_primitive_desc_t pd = NULL;
  a->prim = NULL;
  if (dnnl_memory_desc_init_by_tag(&x, 4, xd, dnnl_f32, dnnl_nchw) != dnnl_success ||
      dnnl_memory_desc_init_by_tag(&w, 4, wd, dnnl_f32, dnnl_oihw) != dnnl_success ||
      dnnl_memory_desc_init_by_tag(&o, 4, od, dnnl_f32, dnnl_nchw) != dnnl_success ||
      dnnl_convolution_forward_desc_init(&d, dnnl_forward_inference, dnnl_convolution_direct, &x, &w, NULL, &o,
                                         strides, pad, pad) != dnnl_success ||
      dnnl_primitive_desc_create(&pd, &d, NULL, eng, NULL) != dnnl_success)
    return;
  if (dnnl_primitive_create(&a->prim, pd) != dnnl_success) a->prim = NULL;
  dnnl_primitive_desc_destroy(pd);
  /* oneDNN never writes through a source handle; its API just is not const. */
  dnnl_memory_create(&a->mem[0], &x, eng, (void *)a->X);
  dnnl_memory_create(&a->mem[1], &w, eng, (void *)a->Wt);
  dnnl_memory_create(&a->mem[2], &o, eng, a->O);
}

static int run_shape(const int64_t *s, int check_only, dnnl_engine_t eng, dnnl_stream_t stream) {
  int64_t N = s[0], C = s[1], H = s[2], W = s[3], F = s[4], R = s[5], S = s[6], stride = s[7], pad = s[8];
  int64_t OH = (H + 2 * pad - R) / stride + 1, OW = (W + 2 * pad - S) / stride + 1;
  if (OH < 1 || OW < 1 || stride < 1 || pad < 0) {
    fprintf(stderr, "conv: the window does not fit the padded image\n");
    return 1;
  }
  int64_t nx = N * C * H * W, nw = F * C * R * S, no = N * F * OH * OW;
  float *X = tut_random(nx), *Wt = tut_random(nw), *O = tut_alloc(no);
  double *want = calloc((size_t)(no > 0 ? no : 1), sizeof(double));
  if (!want) return 1;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t f = 0; f < F; ++f)
      for (int64_t y = 0; y < OH; ++y)
        for (int64_t x = 0; x < OW; ++x) {
          double acc = 0.0;
          for (int64_t c = 0; c < C; ++c)
            for (int64_t r = 0; r < R; ++r)
              for (int64_t q = 0; q < S; ++q) {
                int64_t iy = y * stride + r - pad, ix = x * stride + q - pad;
                if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                  acc += (double)X[((n * C + c) * H + iy) * W + ix] * Wt[((f * C + c) * R + r) * S + q];
              }
          want[((n * F + f) * OH + y) * OW + x] = acc;
        }
  conv_args args = {X, Wt, O, N, C, H, W, F, R, S, stride, pad, NULL, stream, {NULL, NULL, NULL}};
  onednn_setup(&args, eng, OH, OW);
  tut_candidate c[] = {
      {"lesson kernel " TUT_STR(LESSON_FN), call_lesson, &args, 0, 0, 0},
      {"automatic schedule (no kernel)", call_auto, &args, 0, 0, 0},
      {"oneDNN convolution (nchw)", call_onednn, &args, 0, 0, 0},
  };
  printf("conv2d N=%lld C=%lld H=%lld W=%lld F=%lld %lldx%lld stride %lld pad %lld -> %lld x %lld (f32)\n",
         (long long)N, (long long)C, (long long)H, (long long)W, (long long)F, (long long)R, (long long)S,
         (long long)stride, (long long)pad, (long long)OH, (long long)OW);
  tut_run(c, 3, O, no, want, check_only);
  double tol = 1e-5 * (double)(C * R * S) + 1e-5;
  int bad = tut_report(c, 3, 2.0 * (double)no * (double)(C * R * S), "GFLOP/s", tol, check_only);
  tut_lesson_vs_auto(c, check_only);
  if (args.prim) dnnl_primitive_destroy(args.prim);
  for (int i = 0; i < 3; ++i)
    if (args.mem[i]) dnnl_memory_destroy(args.mem[i]);
  free(X);
  free(Wt);
  free(O);
  free(want);
  return bad;
}

int main(int argc, char **argv) {
  int check_only;
  int a = tut_parse_flags(argc, argv, &check_only);
  if ((argc - a) % 9 != 0) {
    fprintf(stderr, "usage: %s [--check] [N C H W F R S stride pad]...\n", argv[0]);
    return 2;
  }
  dnnl_engine_t eng;
  dnnl_stream_t stream;
  if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success ||
      dnnl_stream_create(&stream, eng, dnnl_stream_default_flags) != dnnl_success) {
    fprintf(stderr, "oneDNN: no CPU engine\n");
    return 2;
  }
  static const int64_t resnet[9] = {1, 64, 56, 56, 64, 3, 3, 1, 1};
  int bad = 0;
  if (a == argc) bad |= run_shape(resnet, check_only, eng, stream);
  for (; a + 8 < argc; a += 9) {
    int64_t s[9];
    for (int i = 0; i < 9; ++i) s[i] = atoll(argv[a + i]);
    bad |= run_shape(s, check_only, eng, stream);
  }
  dnnl_stream_destroy(stream);
  dnnl_engine_destroy(eng);
  if (bad) printf("some results are WRONG\n");
  return bad ? 1 : 0;
}
