#include <slave.h>
#include "bcast.h"

__thread_local float box[ROWS * W], line[W];

void bcast(void *p) {
  bcast_args *arg = p;
  int id = athread_get_id(-1);
  volatile int reply = 0;
  float *blk = (float *)ldm_malloc(N * sizeof(float));
  for (int i = 0; i < ROWS * W; ++i) box[i] = -1;

  athread_syn(ARRAY_SCOPE, 0xffff);
  if (id == 0) {
    athread_get(BCAST_MODE, arg->src, blk, N * sizeof(float), (void *)&reply, 0xff, 0, 0);
    while (reply != 1) {}
  }
  athread_syn(ARRAY_SCOPE, 0xffff);
  float sum = 0;
  for (int i = 0; i < N; ++i) sum += blk[i];
  sum += (float)id;
  athread_put(PE_MODE, &sum, arg->sums + id, sizeof sum, (void *)&reply, 0, 0);
  while (reply != (id == 0 ? 2 : 1)) {}

  athread_syn(ARRAY_SCOPE, 0xffff);
  if (id == 9) {
    athread_get(BCAST_MODE, arg->grid, box, ROWS * W * sizeof(float), (void *)&reply, 0x0a,
                (COLS - W) * sizeof(float), W * sizeof(float));
    while (reply != 2) {}
  }
  athread_syn(ARRAY_SCOPE, 0xffff);
  int before = reply;
  athread_put(PE_MODE, box, arg->seen + id * ROWS * W, ROWS * W * sizeof(float), (void *)&reply, 0, 0);
  while (reply != before + 1) {}

  athread_syn(ARRAY_SCOPE, 0xffff);
  before = reply;
  if (id % 8 == 0) {
    athread_get(BCAST_MODE, arg->src + id / 8 * W, line, W * sizeof(float), (void *)&reply, 1 << id / 8, 0, 0);
    while (reply != before + 1) {}
  }
  athread_syn(ARRAY_SCOPE, 0xffff);
  before = reply;
  athread_put(PE_MODE, line, arg->line + id * W, W * sizeof(float), (void *)&reply, 0, 0);
  while (reply != before + 1) {}
  ldm_free(blk, N * sizeof(float));
  if (arg->stack) {
    float local[4];
    athread_syn(ARRAY_SCOPE, 0xffff);
    before = reply;
    if (id == 0) {
      athread_get(BCAST_MODE, arg->src, local, sizeof local, (void *)&reply, 0xff, 0, 0);
      while (reply != before + 1) {}
    }
    athread_syn(ARRAY_SCOPE, 0xffff);
  }
}
