/* race [overlap]: runs race_slave.c's CPE function; without an argument the
 * puts are disjoint within each barrier phase and the rows end up holding
 * their own CPE's id; with `overlap` the emulator aborts with a race report. */
#include <athread.h>
#include <stdio.h>
#include <string.h>
#include "race.h"

extern SLAVE_FUN(race)(void *);

int main(int argc, char **argv) {
  static int out[64 * RACE_ROW + 1];
  race_args arg = {out, argc > 1 && strcmp(argv[1], "overlap") == 0};
  athread_init();
  athread_spawn(race, &arg);
  athread_join();
  for (int r = 0; r < 64; ++r)
    for (int i = 0; i < RACE_ROW; ++i)
      if (out[r * RACE_ROW + i] != r) {
        printf("row %d element %d holds %d\n", r, i, out[r * RACE_ROW + i]);
        return 1;
      }
  printf("race: disjoint puts per barrier phase accepted, rows correct\n");
  athread_halt();
  return 0;
}
