/* Barrier test: in every round each CPE publishes a value derived from
 * (round, id) to main memory, synchronises, then reads the values of a
 * neighbour in the array / row / column scope; a missing or leaky barrier
 * shows up as a stale or future value. */
#include <slave.h>
#include "syn.h"

__thread_local int my_id = -1;

static void spin(int n) {
  volatile int x = 0;
  for (int i = 0; i < n; ++i) x += i;
}

static void publish(syn_args *arg, int slot, int round) {
  volatile int reply = 0;
  int v = round * 1000 + my_id;
  if ((round + my_id) % 5 == 0) spin(20000); /* skew the CPEs */
  athread_put(PE_MODE, &v, &arg->val[slot][round & 1][my_id], sizeof v, (void *)&reply, 0, 0);
  while (reply != 1) {}
}

static void check(syn_args *arg, int slot, int round, int other) {
  volatile int reply = 0;
  int v = -1;
  athread_get(PE_MODE, &arg->val[slot][round & 1][other], &v, sizeof v, (void *)&reply, 0, 0, 0);
  while (reply != 1) {}
  if (v != round * 1000 + other) arg->errors[my_id]++;
}

void syn(void *p) {
  syn_args *arg = p;
  my_id = _MYID;
  if (athread_get_id(-1) != my_id || _ROW != my_id / 8 || _COL != my_id % 8) arg->errors[my_id] += 1000;
  for (int round = 0; round < SYN_ROUNDS; ++round) {
    /* two buffers per slot: a CPE one round ahead writes the other one */
    publish(arg, 0, round);
    athread_syn(ARRAY_SCOPE, 0xffff);
    check(arg, 0, round, (my_id + 37) % 64);
    publish(arg, 1, round);
    athread_syn(ROW_SCOPE, 0xff);
    check(arg, 1, round, _ROW * 8 + (_COL + 1) % 8);
    publish(arg, 2, round);
    athread_syn(COL_SCOPE, 0xff);
    check(arg, 2, round, ((_ROW + 3) % 8) * 8 + _COL);
  }
}
