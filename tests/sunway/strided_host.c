#include <athread.h>
#include <stdio.h>
#include <tk_athread_stats.h>
#include "strided.h"

extern SLAVE_FUN(strided)(void *);

static float a[ROWS * COLS], at[COLS * ROWS];

int main(void) {
  static strided_args arg = {a, at};
  for (int i = 0; i < ROWS * COLS; ++i) a[i] = (float)i;
  for (int i = 0; i < ROWS * COLS; ++i) at[i] = -1;
  athread_init();
  athread_spawn(strided, &arg);
  athread_join();
  int bad = 0;
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < COLS; ++c) {
      float orig = (float)(r * COLS + c);
      float want = c < 64 * W ? 2 * orig + (float)(c / W) : orig;
      if (a[r * COLS + c] != want && bad++ < 5)
        fprintf(stderr, "a[%d][%d] = %g, want %g\n", r, c, a[r * COLS + c], want);
      float wt = c < 64 * W ? orig : -1;
      if (at[c * ROWS + r] != wt && bad++ < 5)
        fprintf(stderr, "at[%d][%d] = %g, want %g\n", c, r, at[c * ROWS + r], wt);
    }
  tk_athread_stats s;
  tk_athread_last_stats(&s);
  if (s.total.get_bytes != 64u * ROWS * W * sizeof(float) ||
      s.total.put_bytes != 2 * 64u * ROWS * W * sizeof(float) ||
      /* the two __thread_local blocks of the CPE source (tk-sw5cc registers
       * them), each rounded up to the LDM's 32-byte alignment */
      s.total.ldm_high_water != 2 * ((ROWS * W * sizeof(float) + 31) / 32 * 32) ||
      tk_athread_static_ldm_bytes() != s.total.ldm_high_water) {
    fprintf(stderr, "unexpected accounting\n");
    bad++;
  }
  athread_halt();
  if (bad) return 1;
  printf("strided ok\n");
  return 0;
}
