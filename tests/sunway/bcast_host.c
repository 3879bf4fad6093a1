#include <athread.h>
#include <stdio.h>
#include <string.h>
#include <tk_athread_stats.h>
#include "bcast.h"

extern SLAVE_FUN(bcast)(void *);

static float src[N], grid[ROWS * COLS], sums[64], seen[64 * ROWS * W], line[64 * W];
int main(int argc, char **argv) {
  static bcast_args arg = {src, grid, sums, seen, line, 0};
  arg.stack = argc > 1 && strcmp(argv[1], "stack") == 0;
  float total = 0;
  for (int i = 0; i < N; ++i) src[i] = (float)(i % 17), total += src[i];
  for (int i = 0; i < ROWS * COLS; ++i) grid[i] = (float)i;
  athread_init();
  athread_spawn(bcast, &arg);
  athread_join();
  int bad = 0;
  for (int id = 0; id < 64; ++id) {
    if (sums[id] != total + (float)id && bad++ < 5)
      fprintf(stderr, "CPE %d: broadcast block sums to %g, want %g\n", id, sums[id] - id, total);
    int row = id / 8, gets = row == 1 || row == 3;
    for (int r = 0; r < ROWS; ++r)
      for (int j = 0; j < W; ++j) {
        float want = gets ? (float)(r * COLS + j) : -1.0f;
        float got = seen[id * ROWS * W + r * W + j];
        if (got != want && bad++ < 5) fprintf(stderr, "CPE %d: box[%d][%d] = %g, want %g\n", id, r, j, got, want);
      }
    for (int j = 0; j < W; ++j)
      if (line[id * W + j] != src[row * W + j] && bad++ < 5)
        fprintf(stderr, "CPE %d: line[%d] = %g, want its row's %g\n", id, j, line[id * W + j], src[row * W + j]);
  }
  /* Each broadcast reads main memory once: one get each, by its issuer;
     the 8 to one row each are row broadcasts. */
  tk_athread_stats s;
  tk_athread_last_stats(&s);
  if (s.total.get_count != 10 || s.total.bcast_count != 10 ||
      s.total.get_bytes != (N + ROWS * W + 8 * W) * sizeof(float) || s.total.bcast_bytes != s.total.get_bytes ||
      s.cpe[0].get_bytes != (N + W) * sizeof(float) || s.cpe[9].get_bytes != ROWS * W * sizeof(float) ||
      s.total.row_bcast_count != 8 || s.total.row_bcast_bytes != 8 * W * sizeof(float) ||
      s.cpe[8].row_bcast_count != 1) {
    fprintf(stderr, "unexpected accounting: %llu gets, %llu broadcast, %llu bytes\n",
            (unsigned long long)s.total.get_count, (unsigned long long)s.total.bcast_count,
            (unsigned long long)s.total.get_bytes);
    bad++;
  }
  athread_halt();
  if (bad) return 1;
  printf("ok: broadcasts to all rows, to rows 1 and 3, and to each row from its first CPE\n");
  return 0;
}
