/* slave.h (CPE side) for the tkc host emulator. LDM variables are ordinary
 * thread-local storage, DMA is a (strided) memcpy done at issue time that then
 * bumps the reply counter, athread_syn is a barrier (docs/sunway.md). */
#ifndef TK_ATHREAD_SLAVE_H
#define TK_ATHREAD_SLAVE_H
#include "tk_athread.h"

#define __thread_local __thread
#define _MYID ((int)tk_athread_myid)
#define _ROW ((int)tk_athread_myid / 8)
#define _COL ((int)tk_athread_myid % 8)

/* The argument selects a core in the real API; every use we know passes -1. */
#define athread_get_id(core) ((void)(core), (int)tk_athread_myid)
#define athread_get(mode, src, dst, len, reply, mask, stride, bsize)                                \
  tk_athread_get((mode), (void *)(src), (void *)(dst), (int)(len), (void *)(reply), (int)(mask),    \
                 (int)(stride), (int)(bsize))
#define athread_put(mode, src, dst, len, reply, stride, bsize)                                      \
  tk_athread_put((mode), (void *)(src), (void *)(dst), (int)(len), (void *)(reply), (int)(stride),  \
                 (int)(bsize))
#define athread_syn(scope, mask) tk_athread_syn((scope), (int)(mask))
#define ldm_malloc(size) tk_athread_ldm_malloc(size)
/* Both ldm_free(p) and ldm_free(p, size) are accepted. */
#define ldm_free(...) tk_athread_ldm_free(__VA_ARGS__, (size_t)-1)
#define rpcc() tk_athread_cycles()
/* Descriptor-based DMA: dma(desc, mem, ldm) takes the main-memory address
 * first for both directions; dma_wait spins until the reply word reaches n. */
#define dma_set_op(d, v) tk_dma_set((d), TK_DMA_OP, (long)(v))
#define dma_set_mode(d, v) tk_dma_set((d), TK_DMA_MODE, (long)(v))
#define dma_set_size(d, v) tk_dma_set((d), TK_DMA_SIZE, (long)(v))
#define dma_set_bsize(d, v) tk_dma_set((d), TK_DMA_BSIZE, (long)(v))
#define dma_set_stepsize(d, v) tk_dma_set((d), TK_DMA_STEPSIZE, (long)(v))
#define dma_set_mask(d, v) tk_dma_set((d), TK_DMA_MASK, (long)(v))
#define dma_set_reply(d, r) tk_dma_set_reply((d), (void *)(r))
#define dma(d, mem, ldm) tk_dma_run((d), (void *)(long)(mem), (void *)(long)(ldm))
#define dma_wait(r, n)                                                                              \
  do {                                                                                              \
    while (*(volatile int *)(r) != (n)) {                                                           \
    }                                                                                               \
  } while (0)
/* Floating-point operations the code declares (for the accounting and the
 * performance model; tkc's CPE code calls it; on the chip it is a no-op). */
#define TK_FLOPS(n) ((void)(tk_athread_flops += (unsigned long long)(n)))
/* Transfers issued between TK_DMA_AHEAD(1) and TK_DMA_AHEAD(0) fetch data
 * ahead of its use while the CPE computes (double buffering): the
 * accounting counts them apart, and the performance model overlaps them. */
#define TK_DMA_AHEAD(on) ((void)(tk_athread_ahead = (on)))
/* Inside tkc's reply-word waits: hands the core to the emulator's DMA
 * engine (TK_ATHREAD_DMA=delayed) instead of spinning a time slice away. */
#define TK_DMA_SPIN() tk_athread_yield()
/* Loads and stores the CPE makes directly in main memory (Gload/Gstore on
 * the chip: one slow transaction each), declared by tkc's CPE code. */
#define TK_GMEM(count, bytes) \
  ((void)(tk_athread_gmem_count += (unsigned long long)(count), tk_athread_gmem_bytes += (unsigned long long)(bytes)))

#endif
