#include <slave.h>
#include "strided.h"

__thread_local float blk[ROWS * W];  /* ROWS x W, packed */
__thread_local float tr[W * ROWS];   /* W x ROWS */

void strided(void *p) {
  strided_args *arg = p;
  int id = athread_get_id(-1);
  volatile int reply = 0;
  athread_get(PE_MODE, arg->a + id * W, blk, ROWS * W * sizeof(float), (void *)&reply, 0,
              (COLS - W) * sizeof(float), W * sizeof(float));
  while (reply != 1) {}
  for (int r = 0; r < ROWS; ++r)
    for (int j = 0; j < W; ++j) tr[j * ROWS + r] = blk[r * W + j];
  for (int i = 0; i < ROWS * W; ++i) blk[i] = 2 * blk[i] + (float)id;
  athread_put(PE_MODE, tr, arg->at + (long)id * W * ROWS, W * ROWS * sizeof(float), (void *)&reply, 0, 0);
  athread_put(PE_MODE, blk, arg->a + id * W, ROWS * W * sizeof(float), (void *)&reply,
              (COLS - W) * sizeof(float), W * sizeof(float));
  while (reply != 3) {}
}
