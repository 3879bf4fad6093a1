/* Allocates two 40000-byte LDM buffers: fits the Pro's 256 KiB LDM, not the
 * SW26010's 64 KiB, where the second ldm_malloc must abort. */
#include <slave.h>

void ldm_hog(void *p) {
  int *ok = p;
  char *x = ldm_malloc(40000);
  char *y = ldm_malloc(40000);
  x[0] = y[39999] = 1;
  ok[_MYID] = 1;
  ldm_free(y);
  ldm_free(x);
}
