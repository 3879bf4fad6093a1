/* The dma_desc interface of the CPE side (slave.h): a descriptor records
 * the op, mode, size, block size, step and reply word set by dma_set_*; dma()
 * issues one transfer from it through the same path as athread_get/put.
 * On the chip a descriptor is a 128-bit register value; here it is a handle
 * into a table per CPE, created by the first dma_set_* on it (programs
 * declare descriptors uninitialised or `= 0`, and both work). The tables
 * are static, not thread-local: a library loaded with dlopen has little
 * static TLS to spare. */
#include "tk_athread.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DESCS 256
#define MAGIC 0xD5ACUL /* in the handle's top 16 bits: a handle this table issued */

typedef struct {
  int op, mode, size, bsize, step, mask;
  void *reply;
} desc;

static desc g_descs[TK_ATHREAD_CPES][DESCS];
static unsigned g_count[TK_ATHREAD_CPES]; /* descriptors in use; reset per spawn */

void tk_dma_desc_reset(void) {
  for (int c = 0; c < TK_ATHREAD_CPES; ++c) g_count[c] = 0;
}

static desc *lookup(dma_desc h) {
  unsigned slot = (unsigned)(h & 0xffff);
  if ((h >> 48) == MAGIC && slot < g_count[tk_athread_myid]) return &g_descs[tk_athread_myid][slot];
  return NULL;
}

static desc *get(dma_desc *h, const char *what) {
  if (tk_athread_myid < 0) {
    fprintf(stderr, "tk_athread: %s called outside a CPE (only code run by athread_spawn may use it)\n", what);
    abort();
  }
  desc *d = lookup(*h);
  if (d) return d;
  unsigned *count = &g_count[tk_athread_myid];
  if (*count == DESCS) {
    fprintf(stderr, "tk_athread: CPE %d: more than %d dma_desc descriptors in one spawn\n", tk_athread_myid, DESCS);
    abort();
  }
  d = &g_descs[tk_athread_myid][*count];
  desc zero = {0, 0, 0, 0, 0, 0, NULL};
  *d = zero;
  *h = (MAGIC << 48) | (*count)++;
  return d;
}

void tk_dma_set(dma_desc *h, int field, long value) {
  desc *d = get(h, "dma_set_*");
  switch (field) {
  case TK_DMA_OP: d->op = (int)value; break;
  case TK_DMA_MODE: d->mode = (int)value; break;
  case TK_DMA_SIZE: d->size = (int)value; break;
  case TK_DMA_BSIZE: d->bsize = (int)value; break;
  case TK_DMA_STEPSIZE: d->step = (int)value; break;
  case TK_DMA_MASK: d->mask = (int)value; break;
  default: fprintf(stderr, "tk_athread: unknown dma descriptor field %d\n", field); abort();
  }
}

void tk_dma_set_reply(dma_desc *h, void *reply) { get(h, "dma_set_reply")->reply = reply; }

int tk_dma_run(dma_desc h, void *mem, void *ldm) {
  desc *d = tk_athread_myid >= 0 ? lookup(h) : NULL;
  if (!d) {
    fprintf(stderr, "tk_athread: CPE %d: dma() with a descriptor no dma_set_* call set up\n", tk_athread_myid);
    abort();
  }
  if (d->op == DMA_GET) return tk_athread_get(d->mode, mem, ldm, d->size, d->reply, d->mask, d->step, d->bsize);
  if (d->op == DMA_PUT) return tk_athread_put(d->mode, ldm, mem, d->size, d->reply, d->step, d->bsize);
  fprintf(stderr, "tk_athread: CPE %d: dma() with op %d (DMA_GET or DMA_PUT expected)\n", tk_athread_myid, d->op);
  abort();
}
