/* tk_athread_stats.h: what the emulator counted during athread spawns.
 *
 * Every athread_get / athread_put a CPE issues adds one transfer and `len`
 * bytes to that CPE's counters; ldm_high_water is the most bytes the CPE had
 * allocated with ldm_malloc at once (alignment padding included; __thread_local
 * variables and the stack are not counted); flops are what the CPE code
 * declared through TK_FLOPS(n) (slave.h; tkc's generated CPE code calls it
 * after each store with the operations of the stored value). Counters are
 * reset when a spawn
 * starts and are complete once athread_join returns. */
#ifndef TK_ATHREAD_STATS_H
#define TK_ATHREAD_STATS_H
#include <stdint.h>
#include <stdio.h>
#include "tk_athread.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct tk_athread_cpe_stats {
  uint64_t get_count, get_bytes; /* athread_get: transfers, bytes */
  uint64_t put_count, put_bytes; /* athread_put: transfers, bytes */
  uint64_t ldm_high_water;       /* bytes */
  uint64_t flops;                /* counted by TK_FLOPS annotations (tkc's CPE code) */
  uint64_t ahead_count, ahead_bytes; /* of the transfers above, those issued ahead (TK_DMA_AHEAD) */
  uint64_t bcast_count, bcast_bytes; /* of the gets, those broadcast (BCAST_MODE): read once, landing in many LDMs */
  uint64_t bcast_ahead_count, bcast_ahead_bytes; /* of the broadcasts, those issued ahead */
  /* of the broadcasts, those whose mask names one row of CPEs (and of
     those, the ones issued ahead): the rows' broadcasts can run at once */
  uint64_t row_bcast_count, row_bcast_bytes, row_bcast_ahead_count, row_bcast_ahead_bytes;
  uint64_t syn_count;            /* athread_syn calls (barriers of any scope) */
  uint64_t gmem_count, gmem_bytes;   /* direct main-memory loads and stores (TK_GMEM), not DMA */
} tk_athread_cpe_stats;

typedef struct tk_athread_stats {
  uint64_t spawns;             /* spawns counted (1 for the last-spawn view) */
  uint64_t ldm_capacity;       /* bytes per CPE (TK_ATHREAD_LDM_BYTES) */
  tk_athread_cpe_stats total;  /* sums over CPEs; ldm_high_water is the max */
  tk_athread_cpe_stats cpe[TK_ATHREAD_CPES];
} tk_athread_stats;

/* The last joined spawn. Returns 0, or -1 when no spawn has been joined. */
int tk_athread_last_stats(tk_athread_stats *out);
/* Accumulated over every joined spawn since the program started (per CPE:
 * sums of counts and bytes, max of high-water marks). */
int tk_athread_total_stats(tk_athread_stats *out);
/* The spawn joined `back` spawns before the last one (0: the last); the
 * emulator keeps the last TK_ATHREAD_RECENT. Returns 0, or -1 when that
 * spawn is not kept. */
#define TK_ATHREAD_RECENT 64
int tk_athread_recent_stats(unsigned back, tk_athread_stats *out);
/* One summary line per non-idle CPE plus a total line. */
void tk_athread_print_stats(FILE *f, const tk_athread_stats *s);

#ifdef __cplusplus
}
#endif
#endif
