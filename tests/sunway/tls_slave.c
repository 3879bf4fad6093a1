/* Two __thread_local buffers of 40000 bytes each: 80000 bytes of LDM. */
#include <slave.h>

__thread_local float tile_a[10000];
__thread_local float tile_b[10000];

void tls_touch(void *p) {
  float *out = p;
  tile_a[9999] = (float)_MYID;
  tile_b[0] = tile_a[9999];
  out[_MYID] = tile_b[0];
}
