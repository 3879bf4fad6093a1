/* CPE side: chunk k of VA_CHUNK floats goes to CPE k % 64; each chunk is
 * DMAed into LDM, added, DMAed back, and summed into this CPE's partial. */
#include <slave.h>
#include "vecadd.h"

void vecadd(void *p) {
  vecadd_args *arg = p;
  float *a = ldm_malloc(VA_CHUNK * sizeof(float));
  float *b = ldm_malloc(VA_CHUNK * sizeof(float));
  float *c = ldm_malloc(VA_CHUNK * sizeof(float));
  volatile int reply;
  double sum = 0;
  long nchunks = (arg->n + VA_CHUNK - 1) / VA_CHUNK;
  for (long k = _MYID; k < nchunks; k += 64) {
    long off = k * VA_CHUNK;
    int len = (int)(arg->n - off < VA_CHUNK ? arg->n - off : VA_CHUNK);
    reply = 0;
    athread_get(PE_MODE, arg->a + off, a, len * sizeof(float), (void *)&reply, 0, 0, 0);
    athread_get(PE_MODE, arg->b + off, b, len * sizeof(float), (void *)&reply, 0, 0, 0);
    while (reply != 2) {}
    for (int i = 0; i < len; ++i) {
      c[i] = a[i] + b[i];
      sum += c[i];
    }
    reply = 0;
    athread_put(PE_MODE, c, arg->c + off, len * sizeof(float), (void *)&reply, 0, 0);
    while (reply != 1) {}
  }
  arg->partial[athread_get_id(-1)] = sum;
  ldm_free(c, VA_CHUNK * sizeof(float));
  ldm_free(b);
  ldm_free(a);
}
