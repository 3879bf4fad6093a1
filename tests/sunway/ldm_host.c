#include <athread.h>
#include <stdio.h>
#include <tk_athread_stats.h>

extern SLAVE_FUN(ldm_hog)(void *);

int main(void) {
  static int ok[64];
  athread_init();
  athread_spawn(ldm_hog, ok);
  athread_join();
  tk_athread_stats s;
  tk_athread_last_stats(&s);
  athread_halt();
  for (int i = 0; i < 64; ++i)
    if (!ok[i]) return fprintf(stderr, "cpe %d did not finish\n", i), 1;
  printf("ldm ok: capacity %llu, peak %llu\n", (unsigned long long)s.ldm_capacity,
         (unsigned long long)s.total.ldm_high_water);
  return s.total.ldm_high_water == 80000 ? 0 : 1;
}
