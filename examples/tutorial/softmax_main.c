/* softmax_main.c - the driver of the softmax lesson (9) of the tutorial.
 *
 *   softmax_main [--check] [M N]...      (default: 4096 1024)
 *
 * Runs std/nn.tk's softmax over the rows of an M x N f32 matrix three ways
 * on the same random inputs: the lesson's kernel (LESSON_FN, lesson.h),
 * tkc's automatic schedule (softmax with no kernel, auto.h) and oneDNN's
 * softmax primitive. Each result is compared with a double-precision
 * reference. Softmax does ~10 operations per element, so memory traffic
 * bounds it: the table gives GB/s (one read of X and one write of Y per
 * element, 8 bytes) of the median run. Exit status 1 if any result is
 * wrong. --check: correctness only. */
#include "tutorial.h"

#include "auto.h"   /* int softmax(const float *X, float *Y, int64_t M, int64_t N) */
#include "lesson.h" /* the same signature under the lesson kernel's name */

#include <dnnl.h>

#ifndef LESSON_FN
#error "compile with -DLESSON_FN=<the lesson's kernel name>"
#endif
#define TUT_STR2(x) #x
#define TUT_STR(x) TUT_STR2(x)

typedef struct {
  const float *X;
  float *Y;
  int64_t M, N;
  dnnl_primitive_t prim;
  dnnl_stream_t stream;
  dnnl_memory_t src, dst;
} sm_args;

static int call_lesson(void *p) {
  sm_args *a = p;
  return LESSON_FN(a->X, a->Y, a->M, a->N);
}
static int call_auto(void *p) {
  sm_args *a = p;
  return softmax(a->X, a->Y, a->M, a->N);
}
static int call_onednn(void *p) {
  sm_args *a = p;
  if (!a->prim) return 99;
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, a->src}, {DNNL_ARG_DST, a->dst}};
  if (dnnl_primitive_execute(a->prim, a->stream, 2, args) != dnnl_success) return 98;
  return dnnl_stream_wait(a->stream) == dnnl_success ? 0 : 97;
}

static void onednn_setup(sm_args *a, dnnl_engine_t eng) {
  dnnl_memory_desc_t md;
  dnnl_dims_t dims = {a->M, a->N};
  dnnl_softmax_desc_t d;
  dnnl_primitive_desc_t pd = NULL;
  a->prim = NULL;
  if (dnnl_memory_desc_init_by_tag(&md, 2, dims, dnnl_f32, dnnl_ab) != dnnl_success ||
      dnnl_softmax_forward_desc_init(&d, dnnl_forward_inference, &md, 1) != dnnl_success ||
      dnnl_primitive_desc_create(&pd, &d, NULL, eng, NULL) != dnnl_success)
    return;
  if (dnnl_primitive_create(&a->prim, pd) != dnnl_success) a->prim = NULL;
  dnnl_primitive_desc_destroy(pd);
  dnnl_memory_create(&a->src, &md, eng, (void *)a->X); /* never written by oneDNN */
  dnnl_memory_create(&a->dst, &md, eng, a->Y);
}

static int run_shape(int64_t M, int64_t N, int check_only, dnnl_engine_t eng, dnnl_stream_t stream) {
  if (M < 0 || N < 1) {
    fprintf(stderr, "softmax needs M >= 0 and N >= 1\n");
    return 1;
  }
  float *X = tut_random(M * N), *Y = tut_alloc(M * N);
  double *want = calloc((size_t)(M * N > 0 ? M * N : 1), sizeof(double));
  if (!want) return 1;
  for (int64_t i = 0; i < M; ++i) {
    double mx = -INFINITY, sum = 0.0;
    for (int64_t j = 0; j < N; ++j) mx = fmax(mx, X[i * N + j]);
    for (int64_t j = 0; j < N; ++j) sum += exp((double)X[i * N + j] - mx);
    for (int64_t j = 0; j < N; ++j) want[i * N + j] = exp((double)X[i * N + j] - mx) / sum;
  }
  sm_args args = {X, Y, M, N, NULL, stream, NULL, NULL};
  onednn_setup(&args, eng);
  tut_candidate c[] = {
      {"lesson kernel " TUT_STR(LESSON_FN), call_lesson, &args, 0, 0, 0},
      {"automatic schedule (no kernel)", call_auto, &args, 0, 0, 0},
      {"oneDNN softmax", call_onednn, &args, 0, 0, 0},
  };
  printf("softmax over rows, %lld x %lld (f32)\n", (long long)M, (long long)N);
  tut_run(c, 3, Y, M * N, want, check_only);
  /* Inputs in [-1, 1) put every output within e^2 / N of 0: an absolute
   * bound of 1e-4 / N is a relative error of about 1e-5 on the largest. */
  double tol = 1e-4 / (double)N;
  int bad = tut_report(c, 3, 8.0 * (double)M * (double)N, "GB/s", tol, check_only);
  tut_lesson_vs_auto(c, check_only);
  if (args.prim) dnnl_primitive_destroy(args.prim);
  if (args.src) dnnl_memory_destroy(args.src);
  if (args.dst) dnnl_memory_destroy(args.dst);
  free(X);
  free(Y);
  free(want);
  return bad;
}

int main(int argc, char **argv) {
  int check_only;
  int a = tut_parse_flags(argc, argv, &check_only);
  if ((argc - a) % 2 != 0) {
    fprintf(stderr, "usage: %s [--check] [M N]...\n", argv[0]);
    return 2;
  }
  dnnl_engine_t eng;
  dnnl_stream_t stream;
  if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success ||
      dnnl_stream_create(&stream, eng, dnnl_stream_default_flags) != dnnl_success) {
    fprintf(stderr, "oneDNN: no CPU engine\n");
    return 2;
  }
  int bad = 0;
  if (a == argc) bad |= run_shape(4096, 1024, check_only, eng, stream);
  for (; a + 1 < argc; a += 2) bad |= run_shape(atoll(argv[a]), atoll(argv[a + 1]), check_only, eng, stream);
  dnnl_stream_destroy(stream);
  dnnl_engine_destroy(eng);
  if (bad) printf("some results are WRONG\n");
  return bad ? 1 : 0;
}
