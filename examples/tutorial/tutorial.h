/* tutorial.h - helpers shared by the tutorial's C drivers (matmul_main.c,
 * conv_main.c, softmax_main.c): random inputs, aligned buffers, timing and
 * the result table. Header-only so that each driver is one compile.
 *
 * Timing: every candidate is called once untimed (that call's output is the
 * one checked), then timed in interleaved rounds (tut_run); the median
 * sample is reported, since one preempted sample on a shared machine would
 * spoil a mean, and a best-of flatters whoever was lucky once. */
#ifndef TK_TUTORIAL_H
#define TK_TUTORIAL_H

#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double tut_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t tut_rng = 0x9E3779B97F4A7C15ull;
static inline float tut_rand(void) { /* uniform in [-1, 1): xorshift64 */
  tut_rng ^= tut_rng << 13;
  tut_rng ^= tut_rng >> 7;
  tut_rng ^= tut_rng << 17;
  return (float)((double)(tut_rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* Cache-line aligned (docs/abi.md: full vectors then never straddle two
 * lines); at least one element so that empty tensors still get a pointer. */
static inline float *tut_alloc(int64_t n) {
  size_t bytes = ((size_t)(n > 0 ? n : 1) * sizeof(float) + 63) / 64 * 64;
  float *p = aligned_alloc(64, bytes);
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    exit(2);
  }
  return p;
}

static inline float *tut_random(int64_t n) {
  float *p = tut_alloc(n);
  for (int64_t i = 0; i < n; ++i) p[i] = tut_rand();
  return p;
}

static inline void tut_poison(float *p, int64_t n) { /* a kernel that skips an element shows as NaN */
  for (int64_t i = 0; i < n; ++i) p[i] = NAN;
}

/* Largest |got - want| (NaN if any element is NaN or never written). */
static inline double tut_max_err(const float *got, const double *want, int64_t n) {
  double err = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    double e = fabs((double)got[i] - want[i]);
    if (!(e <= err)) err = e; /* NaN propagates */
  }
  return err;
}

/* One candidate: a name, a call (returns the tkc status, 0 for oneDNN) and
 * what it measured. */
typedef int (*tut_call_fn)(void *ctx);
typedef struct {
  const char *name;
  tut_call_fn call;
  void *ctx;
  int status;     /* status of the checked call */
  double err;     /* max abs error of the checked call */
  double seconds; /* median time per call (0: not timed) */
} tut_candidate;

static inline int tut_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Parses "--check" (correctness only, no timing: the tests) and returns the
 * index of the first shape argument. */
static inline int tut_parse_flags(int argc, char **argv, int *check_only) {
  int a = 1;
  *check_only = 0;
  while (a < argc && strcmp(argv[a], "--check") == 0) {
    *check_only = 1;
    ++a;
  }
  return a;
}

/* The table: rate = work / seconds in `unit` (GFLOP/s or GB/s); ratios
 * against the last candidate (oneDNN). Returns 1 if any result is
 * wrong or any call failed. */
static inline int tut_report(tut_candidate *c, int n, double work, const char *unit, double tol, int check_only) {
  int bad = 0;
  double ref = c[n - 1].seconds;
  printf("  %-34s %10s %11s %10s\n", "", unit, "max|err|", check_only ? "" : "vs oneDNN");
  for (int i = 0; i < n; ++i) {
    int ok = c[i].status == 0 && c[i].err <= tol;
    bad |= !ok;
    if (c[i].status != 0) {
      printf("  %-34s  FAILED: returned status %d\n", c[i].name, c[i].status);
      continue;
    }
    if (check_only || c[i].seconds <= 0)
      printf("  %-34s %10s %11.2e %10s  %s\n", c[i].name, "-", c[i].err, "", ok ? "ok" : "WRONG");
    else
      printf("  %-34s %10.2f %11.2e %9.2fx  %s\n", c[i].name, work / c[i].seconds * 1e-9, c[i].err,
             ref / c[i].seconds, ok ? "ok" : "WRONG");
  }
  return bad;
}

/* The lesson drivers' last line: candidate 0 (the lesson) against 1 (tkc's
 * automatic schedule). */
static inline void tut_lesson_vs_auto(const tut_candidate *c, int check_only) {
  if (!check_only && c[0].seconds > 0 && c[1].seconds > 0)
    printf("  lesson / automatic: %.2fx\n", c[1].seconds / c[0].seconds);
}

/* One sample: back-to-back calls for at least 20 ms (at least one call);
 * returns seconds per call. */
static inline double tut_sample(tut_call_fn call, void *ctx) {
  int reps = 0;
  double t0 = tut_now(), t = 0.0;
  do {
    call(ctx);
    ++reps;
    t = tut_now() - t0;
  } while (t < 0.02);
  return t / reps;
}

/* Check every candidate once, then time them in rounds, each round one
 * sample of every candidate in turn, and keep each one's median sample.
 * Interleaving matters on a shared machine: a burst of other work then
 * slows one sample of each candidate instead of all samples of one, and
 * the ratios stay fair. At most 7 rounds; fewer once 2 s are spent (3
 * rounds at least) or 8 s (a naive 1024^3 call takes seconds). */
static inline void tut_run(tut_candidate *c, int n, float *out, int64_t out_n, const double *want, int check_only) {
  enum { ROUNDS = 7 };
  double samples[8][ROUNDS];
  for (int i = 0; i < n; ++i) {
    tut_poison(out, out_n);
    c[i].status = c[i].call(c[i].ctx);
    c[i].err = c[i].status == 0 ? tut_max_err(out, want, out_n) : INFINITY;
  }
  if (check_only || n > 8) return;
  int rounds = 0;
  double t0 = tut_now();
  while (rounds < ROUNDS) {
    for (int i = 0; i < n; ++i) samples[i][rounds] = c[i].status == 0 ? tut_sample(c[i].call, c[i].ctx) : 0.0;
    ++rounds;
    double spent = tut_now() - t0;
    if ((spent > 2.0 && rounds >= 3) || spent > 8.0) break;
  }
  for (int i = 0; i < n; ++i) {
    qsort(samples[i], (size_t)rounds, sizeof(double), tut_cmp_double);
    c[i].seconds = samples[i][rounds / 2];
  }
}

#endif
