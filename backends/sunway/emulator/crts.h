/* crts.h: a few names of SW26010-Pro's CRTS API mapped onto the same
 * emulator (MPE and CPE names in one header, as the real one). Note the
 * reversed argument order of the DMA calls: destination first. */
#ifndef TK_ATHREAD_CRTS_H
#define TK_ATHREAD_CRTS_H
#include "athread.h"
#include "slave.h"

#define CRTS_init() tk_athread_init()
#define CRTS_athread_spawn(f, arg) athread_spawn(f, arg)
#define CRTS_athread_join() tk_athread_join()
#define CRTS_athread_halt() tk_athread_halt()

#define CRTS_tid ((int)tk_athread_myid)
#define CRTS_rid ((int)tk_athread_myid / 8)
#define CRTS_cid ((int)tk_athread_myid % 8)
#define CRTS_dma_iget(ldm, mem, len, reply) tk_athread_get(PE_MODE, (void *)(mem), (void *)(ldm), (int)(len), (void *)(reply), 0, 0, 0)
#define CRTS_dma_iput(mem, ldm, len, reply) tk_athread_put(PE_MODE, (void *)(ldm), (void *)(mem), (int)(len), (void *)(reply), 0, 0)
#define CRTS_dma_get(ldm, mem, len) tk_athread_get(PE_MODE, (void *)(mem), (void *)(ldm), (int)(len), 0, 0, 0, 0)
#define CRTS_dma_put(mem, ldm, len) tk_athread_put(PE_MODE, (void *)(ldm), (void *)(mem), (int)(len), 0, 0, 0)
#define CRTS_dma_wait_value(reply, n) do { while (*(volatile int *)(reply) != (n)) {} } while (0)
#define CRTS_ssync_array() tk_athread_syn(ARRAY_SCOPE, -1)
#define CRTS_ssync_row() tk_athread_syn(ROW_SCOPE, -1)
#define CRTS_ssync_col() tk_athread_syn(COL_SCOPE, -1)
#define CRTS_pldm_malloc(size) tk_athread_ldm_malloc(size)
#define CRTS_pldm_free(p, size) tk_athread_ldm_free((p), (size))

#endif
