/* dma_engine.h (internal to the emulator): performing DMA transfers. By
 * default a transfer is done when it is issued. With TK_ATHREAD_DMA=delayed
 * a DMA engine thread does it later, as the chip's engine does: a get's LDM
 * bytes are poisoned (0xff) until then and a put reads its LDM bytes only
 * then, so code that uses a buffer before waiting for its reply word reads
 * garbage or writes stale data instead of passing by luck. */
#ifndef TK_ATHREAD_DMA_ENGINE_H
#define TK_ATHREAD_DMA_ENGINE_H
#include <stddef.h>

typedef struct {
  int to_ldm;                /* get: main memory -> LDM */
  unsigned char *mem, *ldm;  /* mem: blocks of bsize bytes `gap` apart (gap 0: contiguous); ldm: packed */
  size_t len, gap, bsize;
  void *reply;               /* incremented when done; may be null */
} tk_dma_job;

/* Whether transfers are delayed (read once, from TK_ATHREAD_DMA). */
int tk_dma_delayed(void);
/* Does `j` now, or queues it for the engine when delayed. */
void tk_dma_issue(const tk_dma_job *j);
/* Around each spawn: the engine thread runs while CPEs do (delayed only);
 * stop drains the queue. */
void tk_dma_engine_start(void);
void tk_dma_engine_stop(void);

#endif
