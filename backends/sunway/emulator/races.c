/* Race detection for athread_put (races.h): each CPE appends the ranges it
 * writes to its own list; after the spawn the lists are merged, sorted by
 * phase and start, and swept for overlaps between different CPEs. */
#include "races.h"
#include "tk_athread.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  uintptr_t lo, hi; /* [lo, hi) */
  unsigned phase;
  int cpe;
} range;

static struct {
  range *r;
  size_t n, cap;
} g_lists[TK_ATHREAD_CPES];

static void push(int cpe, unsigned phase, uintptr_t lo, uintptr_t hi) {
  if (lo == hi) return;
  if (g_lists[cpe].n == g_lists[cpe].cap) {
    size_t cap = g_lists[cpe].cap ? 2 * g_lists[cpe].cap : 64;
    range *r = realloc(g_lists[cpe].r, cap * sizeof(range));
    if (!r) {
      fprintf(stderr, "tk_athread: out of memory recording DMA writes\n");
      abort();
    }
    g_lists[cpe].r = r;
    g_lists[cpe].cap = cap;
  }
  range x = {lo, hi, phase, cpe};
  g_lists[cpe].r[g_lists[cpe].n++] = x;
}

void tk_races_record(int cpe, unsigned phase, const unsigned char *mem, size_t len, size_t gap, size_t bsize) {
  uintptr_t at = (uintptr_t)mem;
  if (gap == 0) {
    push(cpe, phase, at, at + len);
    return;
  }
  for (size_t done = 0; done < len; done += bsize, at += bsize + gap)
    push(cpe, phase, at, at + (len - done < bsize ? len - done : bsize));
}

static int by_phase_then_start(const void *a, const void *b) {
  const range *x = a, *y = b;
  if (x->phase != y->phase) return x->phase < y->phase ? -1 : 1;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return (x->hi > y->hi) - (x->hi < y->hi);
}

int tk_races_check(void) {
  size_t total = 0;
  for (int c = 0; c < TK_ATHREAD_CPES; ++c) total += g_lists[c].n;
  range *all = total ? malloc(total * sizeof(range)) : NULL;
  if (total && !all) {
    fprintf(stderr, "tk_athread: out of memory checking DMA writes\n");
    abort();
  }
  size_t k = 0;
  for (int c = 0; c < TK_ATHREAD_CPES; ++c) {
    for (size_t i = 0; i < g_lists[c].n; ++i) all[k++] = g_lists[c].r[i];
    g_lists[c].n = 0;
  }
  qsort(all, total, sizeof(range), by_phase_then_start);
  int found = 0;
  /* `reach`: the range reaching furthest so far in this phase. */
  for (size_t i = 0, reach = 0; i < total && !found; ++i) {
    if (i > 0 && all[i].phase == all[reach].phase && all[i].lo < all[reach].hi && all[i].cpe != all[reach].cpe) {
      uintptr_t hi = all[i].hi < all[reach].hi ? all[i].hi : all[reach].hi;
      fprintf(stderr,
              "tk_athread: race: CPEs %d and %d both wrote main-memory bytes [%p, %p) by athread_put in one "
              "spawn with no array barrier between (the last write wins at random on the chip)\n",
              all[reach].cpe, all[i].cpe, (void *)all[i].lo, (void *)hi);
      found = 1;
    }
    if (i == 0 || all[i].phase != all[reach].phase || all[i].hi > all[reach].hi) reach = i;
  }
  free(all);
  return found;
}
