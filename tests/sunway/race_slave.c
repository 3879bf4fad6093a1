/* Race test: every CPE puts its id into a row of main memory. With
 * `overlap` set, CPE k's row also covers the first element of CPE k+1's
 * (a stride-1 off-by-one), which the emulator must report as a race; a
 * second put of the same bytes after an array barrier is not one. */
#include <slave.h>
#include "race.h"

void race(void *p) {
  race_args *arg = p;
  int id = _MYID;
  int row[RACE_ROW + 1];
  volatile int reply = 0;
  for (int i = 0; i <= RACE_ROW; ++i) row[i] = id;
  int len = (RACE_ROW + (arg->overlap && id < 63 ? 1 : 0)) * (int)sizeof(int);
  athread_put(PE_MODE, row, &arg->out[id * RACE_ROW], len, (void *)&reply, 0, 0);
  while (reply != 1) {}
  athread_syn(ARRAY_SCOPE, 0xffff);
  /* After the barrier each CPE rewrites its neighbour's row: a new phase. */
  int other = (id + 1) % 64;
  for (int i = 0; i < RACE_ROW; ++i) row[i] = other;
  athread_put(PE_MODE, row, &arg->out[other * RACE_ROW], RACE_ROW * (int)sizeof(int), (void *)&reply, 0, 0);
  while (reply != 2) {}
}
