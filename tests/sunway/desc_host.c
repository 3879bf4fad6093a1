/* desc: runs desc_slave.c's CPE function and checks the doubled rows and the
 * column sums it computed through descriptor-based DMA. */
#include <athread.h>
#include <math.h>
#include <stdio.h>
#include "desc.h"

extern SLAVE_FUN(desc)(void *);

int main(void) {
  static float in[DESC_ROWS * DESC_COLS], out[DESC_ROWS * DESC_COLS];
  static desc_args arg;
  for (int i = 0; i < DESC_ROWS * DESC_COLS; ++i) in[i] = (float)(i % 13) - 6.0f;
  arg.in = in;
  arg.out = out;
  athread_init();
  athread_spawn(desc, &arg);
  athread_join();
  int bad = 0;
  for (int i = 0; i < DESC_ROWS * DESC_COLS; ++i) bad += out[i] != 2.0f * in[i];
  for (int k = 0; k < 64; ++k) {
    float want = 0;
    for (int i = 0; i < DESC_ROWS; ++i) want += in[i * DESC_COLS + k % DESC_COLS];
    bad += fabsf(arg.colsum[k] - want) > 1e-3f;
  }
  athread_halt();
  if (bad) {
    printf("desc: %d wrong values\n", bad);
    return 1;
  }
  printf("desc: rows doubled and column sums right through dma_desc\n");
  return 0;
}
