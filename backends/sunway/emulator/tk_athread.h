/* tk_athread.h: the functions that athread.h / slave.h / crts.h expand to.
 * The emulator runs the 64 CPEs of one core group as host threads; programs
 * use the real API names, never these directly (docs/sunway.md). */
#ifndef TK_ATHREAD_H
#define TK_ATHREAD_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

#define TK_ATHREAD_CPES 64 /* 8 x 8 CPEs per core group */

#if defined(TK_ATHREAD_PRO) && !defined(TK_ATHREAD_SLAVE)
/* Programs built by tk-swgcc (SW26010-Pro) start with 256 KiB of LDM per CPE
 * instead of 64 KiB: every MPE object carries this weak definition, which the
 * emulator reads (TK_ATHREAD_LDM_BYTES still overrides it). */
__attribute__((weak)) const unsigned long tk_athread_pro_ldm_bytes = 256 * 1024;
#endif

typedef void (*tk_athread_fn)(void *);

/* DMA modes. PE_MODE and, for athread_get, BCAST_MODE (mask: the rows that
 * receive it) are emulated; the others abort when used, so a program that
 * relies on them fails loudly instead of computing garbage. */
typedef enum { PE_MODE = 0, BCAST_MODE = 1, ROW_MODE = 2, BROW_MODE = 3, RANK_MODE = 4 } dma_mode;
/* Synchronisation scopes of athread_syn. */
typedef enum { ARRAY_SCOPE = 0, ROW_SCOPE = 1, COL_SCOPE = 2 } scope;

int tk_athread_init(void);
int tk_athread_spawn(tk_athread_fn fn, void *arg);
int tk_athread_join(void);
int tk_athread_halt(void);

extern __thread int tk_athread_myid; /* -1 on the MPE, 0..63 on a CPE */
extern __thread unsigned long long tk_athread_flops; /* TK_FLOPS (slave.h) */
extern __thread int tk_athread_ahead;                /* TK_DMA_AHEAD (slave.h) */
extern __thread unsigned long long tk_athread_gmem_count, tk_athread_gmem_bytes; /* TK_GMEM (slave.h) */
int tk_athread_get(int mode, void *src_mem, void *dst_ldm, int len, void *reply, int mask,
                   int stride, int bsize);
int tk_athread_put(int mode, void *src_ldm, void *dst_mem, int len, void *reply, int stride,
                   int bsize);
int tk_athread_syn(int scope, int mask);
void *tk_athread_ldm_malloc(size_t size);
/* `size` is accepted (the real ldm_free takes one) but the arena knows it. */
void tk_athread_ldm_free(void *p, size_t size, ...);
size_t tk_athread_ldm_capacity(void);
/* A `__thread_local` variable of a CPE source, registered by the object
 * tk-sw5cc -slave builds (a constructor): on the chip these live in every
 * CPE's LDM, so they count against its capacity before any ldm_malloc. */
typedef struct {
  const char *name;
  size_t bytes;
} tk_athread_ldm_var;
void tk_athread_register_ldm_vars(const char *source, const tk_athread_ldm_var *vars, size_t count);
/* The dma_desc interface (slave.h, dma_desc.c): a descriptor is a handle. */
typedef unsigned long dma_desc;
typedef enum { DMA_PUT = 0, DMA_GET = 1 } DMA_OP;
enum { TK_DMA_OP, TK_DMA_MODE, TK_DMA_SIZE, TK_DMA_BSIZE, TK_DMA_STEPSIZE, TK_DMA_MASK };
void tk_dma_set(dma_desc *d, int field, long value);
void tk_dma_set_reply(dma_desc *d, void *reply);
int tk_dma_run(dma_desc d, void *mem, void *ldm);
void tk_dma_desc_reset(void); /* at each spawn */
/* The bytes the registered variables take in each CPE's LDM. */
size_t tk_athread_static_ldm_bytes(void);
unsigned long tk_athread_cycles(void);
void tk_athread_yield(void); /* gives up the host core (TK_DMA_SPIN) */

#ifdef __cplusplus
}
#endif
#endif
