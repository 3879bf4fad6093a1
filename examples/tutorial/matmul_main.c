/* matmul_main.c - the driver of the matmul lessons (1-7) of the tutorial.
 *
 *   matmul_main [--check] [M K N]...      (default: 1024 1024 1024)
 *
 * For each shape it runs three implementations of C = A B (f32, row-major)
 * on the same random inputs: the lesson's kernel (LESSON_FN, from lesson.h),
 * tkc's automatic schedule (the op `matmul` compiled with no kernel, from
 * auto.h) and oneDNN's dnnl_sgemm. Each result is compared with a
 * double-precision reference; the table gives GFLOP/s of the median run and
 * the speed relative to oneDNN. Exit status 1 if any result is wrong.
 * --check: correctness only (the tests). */
#include "matmul_common.h"

#include "auto.h"   /* int matmul(const float *A, const float *B, float *C, int64_t M, int64_t K, int64_t N) */
#include "lesson.h" /* the same signature under the lesson kernel's name */

#ifndef LESSON_FN
#error "compile with -DLESSON_FN=<the lesson's kernel name>"
#endif
#define TUT_STR2(x) #x
#define TUT_STR(x) TUT_STR2(x)

static int call_lesson(void *p) {
  mm_args *a = p;
  return LESSON_FN(a->A, a->B, a->C, a->M, a->K, a->N);
}
static int call_auto(void *p) {
  mm_args *a = p;
  return matmul(a->A, a->B, a->C, a->M, a->K, a->N);
}

static int run_shape(int64_t M, int64_t K, int64_t N, int check_only) {
  float *A = tut_random(M * K), *B = tut_random(K * N), *C = tut_alloc(M * N);
  double *want = tut_matmul_reference(A, B, M, K, N);
  if (!want) return 1;
  mm_args args = {A, B, C, M, K, N};
  tut_candidate c[] = {
      {"lesson kernel " TUT_STR(LESSON_FN), call_lesson, &args, 0, 0, 0},
      {"automatic schedule (no kernel)", call_auto, &args, 0, 0, 0},
      {"oneDNN dnnl_sgemm", tut_call_onednn_sgemm, &args, 0, 0, 0},
  };
  printf("matmul %lld x %lld x %lld (M x K x N, f32)\n", (long long)M, (long long)K, (long long)N);
  tut_run(c, 3, C, M * N, want, check_only);
  /* Inputs in [-1, 1): a product sums K terms below 1 in magnitude. */
  double tol = 1e-5 * (double)K + 1e-5;
  int bad = tut_report(c, 3, 2.0 * (double)M * (double)N * (double)K, "GFLOP/s", tol, check_only);
  tut_lesson_vs_auto(c, check_only);
  free(A);
  free(B);
  free(C);
  free(want);
  return bad;
}

int main(int argc, char **argv) {
  int check_only;
  int a = tut_parse_flags(argc, argv, &check_only);
  if ((argc - a) % 3 != 0) {
    fprintf(stderr, "usage: %s [--check] [M K N]...\n", argv[0]);
    return 2;
  }
  int bad = 0;
  if (a == argc) bad |= run_shape(1024, 1024, 1024, check_only);
  for (; a + 2 < argc; a += 3) bad |= run_shape(atoll(argv[a]), atoll(argv[a + 1]), atoll(argv[a + 2]), check_only);
  if (bad) printf("some results are WRONG\n");
  return bad ? 1 : 0;
}
