/* tls: a CPE source whose __thread_local arrays need more LDM than the
 * SW26010's 64 KiB (they fit the Pro's 256 KiB): the spawn must abort and
 * name each variable with its bytes. */
#include <athread.h>
#include <stdio.h>

extern SLAVE_FUN(tls_touch)(void *);

int main(void) {
  static float out[64];
  athread_init();
  athread_spawn(tls_touch, out);
  athread_join();
  athread_halt();
  for (int i = 0; i < 64; ++i)
    if (out[i] != (float)i) return fprintf(stderr, "cpe %d: %g\n", i, out[i]), 1;
  printf("tls ok\n");
  return 0;
}
