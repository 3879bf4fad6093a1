/* demo.c - the `make demo` program: tkc's matmul against oneDNN.
 *
 * For each shape M x K x N it fills A, B with random values and runs three
 * implementations of C = A B (f32, row-major) on them:
 *   - matmul_auto: the op compiled with no kernel, i.e. tkc's automatic
 *     schedule (examples/demo/matmul_auto.tk, auto.h);
 *   - matmul_tiled: the hand-written kernel of examples/matmul.tk (matmul.h);
 *   - oneDNN's dnnl_sgemm.
 * Each result is compared with a double-precision reference (max abs
 * error); the table gives GFLOP/s of the median timed run and the speed
 * relative to oneDNN (timing and checks: examples/tutorial/tutorial.h).
 * Exit status 1 if any result is wrong.
 *
 *   demo                      # default shapes
 *   demo M K N [M K N ...]    # custom shapes
 */
#include "matmul_common.h" /* mm_args, oneDNN's SGEMM, the reference (examples/tutorial) */

#include "auto.h"   /* int matmul_auto(const float *A, const float *B, float *C, int64_t M, int64_t K, int64_t N) */
#include "matmul.h" /* int matmul_tiled(...), same signature */

static int call_auto(void *p) {
  mm_args *a = p;
  return matmul_auto(a->A, a->B, a->C, a->M, a->K, a->N);
}
static int call_tiled(void *p) {
  mm_args *a = p;
  return matmul_tiled(a->A, a->B, a->C, a->M, a->K, a->N);
}

static int run_shape(int64_t M, int64_t K, int64_t N) {
  float *A = tut_random(M * K), *B = tut_random(K * N), *C = tut_alloc(M * N);
  double *want = tut_matmul_reference(A, B, M, K, N);
  if (!want) return 1;
  mm_args args = {A, B, C, M, K, N};
  tut_candidate c[] = {
      {"tkc, automatic schedule (no kernel)", call_auto, &args, 0, 0, 0},
      {"tkc, hand kernel matmul_tiled", call_tiled, &args, 0, 0, 0},
      {"oneDNN dnnl_sgemm", tut_call_onednn_sgemm, &args, 0, 0, 0},
  };
  printf("%lld x %lld x %lld\n", (long long)M, (long long)K, (long long)N);
  tut_run(c, 3, C, M * N, want, 0);
  int bad = tut_report(c, 3, 2.0 * (double)M * (double)N * (double)K, "GFLOP/s", 1e-5 * (double)K + 1e-5, 0);
  free(A);
  free(B);
  free(C);
  free(want);
  return bad;
}

int main(int argc, char **argv) {
  static const int64_t defaults[][3] = {{512, 512, 512}, {1024, 1024, 1024}, {1000, 1100, 1200}};
  int failures = 0;
  if ((argc - 1) % 3 != 0) {
    fprintf(stderr, "usage: %s [M K N]...\n", argv[0]);
    return 2;
  }
  printf("tk demo: C = A B (f32), shapes M x K x N; GFLOP/s of the median run, ratio to oneDNN\n");
  if (argc > 1)
    for (int a = 1; a + 2 < argc; a += 3) failures += run_shape(atoll(argv[a]), atoll(argv[a + 1]), atoll(argv[a + 2]));
  else
    for (size_t s = 0; s < sizeof(defaults) / sizeof(defaults[0]); ++s)
      failures += run_shape(defaults[s][0], defaults[s][1], defaults[s][2]);
  printf(failures ? "demo: %d shape(s) FAILED\n" : "demo: all shapes correct\n", failures);
  return failures ? 1 : 0;
}
