/* MPE side of the vector-add test. `vecadd_host` checks c = a + b and the
 * reduced sum; `vecadd_host stats` checks the emulator's accounting: the DMA
 * bytes equal the compulsory traffic (a and b read once, c written once). */
#include <athread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tk_athread_stats.h>
#include "vecadd.h"

extern SLAVE_FUN(vecadd)(void *);

#define N 100003L /* prime: the last chunk is partial and CPEs get unequal work */

int main(int argc, char **argv) {
  static vecadd_args arg;
  float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float)), *c = malloc(N * sizeof(float));
  for (long i = 0; i < N; ++i) {
    a[i] = (float)(i % 1000) * 0.5f;
    b[i] = (float)(i % 7) - 3.0f;
    c[i] = -1.0f;
  }
  arg.a = a, arg.b = b, arg.c = c, arg.n = N;
  athread_init();
  athread_spawn(vecadd, &arg);
  athread_join();
  int bad = 0;
  double sum = 0, want = 0;
  for (long i = 0; i < N; ++i) {
    float r = a[i] + b[i];
    want += r;
    if (c[i] != r && bad++ < 5) fprintf(stderr, "c[%ld] = %g, want %g\n", i, c[i], r);
  }
  for (int p = 0; p < 64; ++p) sum += arg.partial[p];
  if (fabs(sum - want) > 1e-9 * fabs(want)) {
    fprintf(stderr, "sum %.17g, want %.17g\n", sum, want);
    bad++;
  }
  if (argc > 1 && strcmp(argv[1], "stats") == 0) {
    tk_athread_stats s;
    long chunks = (N + VA_CHUNK - 1) / VA_CHUNK;
    if (tk_athread_last_stats(&s) != 0) return fprintf(stderr, "no stats\n"), 1;
    tk_athread_print_stats(stdout, &s);
    if (s.total.get_bytes != 2 * N * sizeof(float) || s.total.put_bytes != N * sizeof(float) ||
        s.total.get_count != 2 * (unsigned long)chunks || s.total.put_count != (unsigned long)chunks ||
        s.total.ldm_high_water != 3 * VA_CHUNK * sizeof(float) || s.ldm_capacity != 65536) {
      fprintf(stderr, "unexpected accounting\n");
      bad++;
    }
    /* per CPE: CPE 0 owns chunks 0, 64, ...; the partial last chunk is chunk
     * `chunks - 1`, on CPE (chunks - 1) % 64. */
    long last = (chunks - 1) % 64, own0 = (chunks + 63) / 64;
    if (s.cpe[0].put_count != (unsigned long)own0 ||
        s.cpe[last].put_bytes != (unsigned long)((chunks - 1) / 64 * VA_CHUNK + (N - (chunks - 1) * VA_CHUNK)) * sizeof(float)) {
      fprintf(stderr, "unexpected per-CPE accounting\n");
      bad++;
    }
  }
  athread_halt();
  if (bad) return 1;
  printf("vecadd ok: n=%ld sum=%.6g\n", N, sum);
  return 0;
}
