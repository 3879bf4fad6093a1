/* DMA misuse: each CPE sums a chunk it fetched, once after waiting for the
 * reply (right) and once before (wrong: the transfer may not have landed).
 * On the emulator's default path both agree, as they may by luck on the
 * chip; with TK_ATHREAD_DMA=delayed the early read sees the poisoned
 * buffer, and the host reports it. */
#include <slave.h>
#include "early.h"

void early(void *p) {
  early_args *arg = p;
  int id = _MYID;
  float buf[EARLY_CHUNK];
  volatile int reply = 0;
  athread_get(PE_MODE, arg->in + id * EARLY_CHUNK, buf, sizeof buf, (void *)&reply, 0, 0, 0);
  float before = 0, after = 0;
  for (int i = 0; i < EARLY_CHUNK; ++i) before += buf[i]; /* the bug */
  while (reply != 1) {}
  for (int i = 0; i < EARLY_CHUNK; ++i) after += buf[i];
  arg->early_ok[id] = before == after;
  arg->sum[id] = after;
}
