#include <athread.h>
#include <stdio.h>
#include "syn.h"

extern SLAVE_FUN(syn)(void *);

int main(void) {
  static syn_args arg;
  athread_init();
  for (int rep = 0; rep < 3; ++rep) { /* repeated spawns reuse the emulator */
    athread_spawn(syn, &arg);
    athread_join();
  }
  athread_halt();
  int bad = 0;
  for (int i = 0; i < 64; ++i)
    if (arg.errors[i]) bad++, fprintf(stderr, "cpe %d: %d errors\n", i, arg.errors[i]);
  if (bad) return 1;
  printf("syn ok\n");
  return 0;
}
