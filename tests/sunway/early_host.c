/* early: runs early_slave.c and reports CPEs whose read before the DMA
 * reply saw something else than the data (exit 1), after checking that
 * the waited-for sums are right. */
#include <athread.h>
#include <stdio.h>
#include "early.h"

extern SLAVE_FUN(early)(void *);

int main(void) {
  static float in[64 * EARLY_CHUNK];
  static early_args arg;
  for (int i = 0; i < 64 * EARLY_CHUNK; ++i) in[i] = (float)(i % 7);
  arg.in = in;
  athread_init();
  athread_spawn(early, &arg);
  athread_join();
  athread_halt();
  int stale = 0;
  for (int k = 0; k < 64; ++k) {
    float want = 0;
    for (int i = 0; i < EARLY_CHUNK; ++i) want += in[k * EARLY_CHUNK + i];
    if (arg.sum[k] != want) {
      printf("early: CPE %d: wrong sum after waiting\n", k);
      return 2;
    }
    stale += !arg.early_ok[k];
  }
  if (stale) {
    fprintf(stderr, "early: %d CPEs read their LDM buffer before its DMA completed\n", stale);
    return 1;
  }
  printf("early: reads before the reply matched the data\n");
  return 0;
}
