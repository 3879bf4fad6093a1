/* Host emulation of the athread API (SW26010 core group: 1 MPE + 64 CPEs).
 * Each spawn runs the CPE function on 64 fresh host threads, so __thread_local
 * (thread-local) LDM variables start zeroed in every spawn as on a freshly
 * loaded CPE. DMA completes synchronously at issue (or later, by an engine
 * thread, with TK_ATHREAD_DMA=delayed: dma_engine.h); the reply counter is
 * bumped afterwards, so the usual "issue n, spin until reply == n" works.
 * Puts of two CPEs to the same bytes in one barrier phase abort (races.h).
 * Semantics and limits: docs/sunway.md. */
#define _GNU_SOURCE
#include "dma_engine.h"
#include "races.h"
#include "tk_athread.h"
#include "tk_athread_stats.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LDM_ALIGN 32     /* 256-bit vector loads need it on the CPE */
#define LDM_MAX_ALLOCS 1024

typedef struct { size_t off, size; } ldm_block;

typedef struct {
  unsigned char *ldm;               /* the arena: `capacity` bytes */
  size_t nblocks;                   /* live blocks, sorted by offset */
  ldm_block blocks[LDM_MAX_ALLOCS];
  size_t in_use;
  unsigned phase;                   /* array-wide barriers passed in this spawn */
  unsigned char *tls;               /* this thread's tk_athread_myid: where a broadcast finds its __thread_local data */
  unsigned char *stack_lo, *stack_hi; /* the CPE code's frames (glibc keeps the thread's TLS above them) */
  tk_athread_cpe_stats st;
} cpe_state;

__thread int tk_athread_myid = -1;
__thread unsigned long long tk_athread_flops;
__thread int tk_athread_ahead;
__thread unsigned long long tk_athread_gmem_count, tk_athread_gmem_bytes;
static __thread cpe_state *my_cpe;

static int g_inited, g_running;
static size_t g_capacity = 64 * 1024;
static int g_gmem_error; /* TK_ATHREAD_GMEM=error: declared direct accesses abort */
static cpe_state g_cpe[TK_ATHREAD_CPES];
static pthread_t g_threads[TK_ATHREAD_CPES];
static tk_athread_fn g_fn;
static void *g_arg;
static pthread_barrier_t g_array_bar, g_row_bar[8], g_col_bar[8];
static tk_athread_stats g_last, g_total;
static tk_athread_stats g_recent[TK_ATHREAD_RECENT]; /* ring, by g_total.spawns */
/* __thread_local variables of the CPE sources (tk_athread_register_ldm_vars). */
#define LDM_MAX_STATIC 256
static struct {
  const char *source, *name;
  size_t bytes;
} g_static[LDM_MAX_STATIC];
static size_t g_nstatic, g_static_bytes;
static int g_have_last;

static void die(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "tk_athread: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  abort();
}

static cpe_state *need_cpe(const char *what) {
  if (!my_cpe) die("%s called outside a CPE (only code run by athread_spawn may use it)", what);
  return my_cpe;
}

/* Defined (weak) by the MPE objects of tk-swgcc builds (tk_athread.h). */
extern const unsigned long tk_athread_pro_ldm_bytes __attribute__((weak));

static size_t read_capacity(void) {
  const char *s = getenv("TK_ATHREAD_LDM_BYTES");
  if (!s || !*s) return &tk_athread_pro_ldm_bytes ? (size_t)tk_athread_pro_ldm_bytes : 64 * 1024;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end == 'k' || *end == 'K') v *= 1024, ++end;
  if (*end != '\0' || v < LDM_ALIGN || v > (1ull << 30))
    die("TK_ATHREAD_LDM_BYTES=\"%s\": expected a byte count such as 65536 or 256K", s);
  return (size_t)v;
}

int tk_athread_init(void) {
  if (g_inited) return 0;
  if (tk_athread_myid >= 0) die("athread_init called on a CPE");
  g_capacity = read_capacity();
  const char *gmem = getenv("TK_ATHREAD_GMEM");
  g_gmem_error = gmem && strcmp(gmem, "error") == 0;
  pthread_barrier_init(&g_array_bar, NULL, TK_ATHREAD_CPES);
  for (int i = 0; i < 8; ++i) {
    pthread_barrier_init(&g_row_bar[i], NULL, 8);
    pthread_barrier_init(&g_col_bar[i], NULL, 8);
  }
  for (int i = 0; i < TK_ATHREAD_CPES; ++i) {
    g_cpe[i].ldm = aligned_alloc(LDM_ALIGN, (g_capacity + LDM_ALIGN - 1) / LDM_ALIGN * LDM_ALIGN);
    if (!g_cpe[i].ldm) die("cannot allocate %zu bytes of emulated LDM", g_capacity);
  }
  g_inited = 1;
  return 0;
}

static void *cpe_main(void *p) {
  cpe_state *c = p;
  tk_athread_myid = (int)(c - g_cpe);
  my_cpe = c;
  c->tls = (unsigned char *)&tk_athread_myid;
  pthread_attr_t attr;
  void *stack = NULL;
  size_t stack_size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &stack, &stack_size);
    pthread_attr_destroy(&attr);
  }
  (void)stack_size;
  c->stack_lo = stack;
  c->stack_hi = __builtin_frame_address(0);
  tk_athread_flops = 0;
  tk_athread_ahead = 0;
  tk_athread_gmem_count = tk_athread_gmem_bytes = 0;
  g_fn(g_arg);
  c->st.flops = tk_athread_flops;
  c->st.gmem_count = tk_athread_gmem_count;
  c->st.gmem_bytes = tk_athread_gmem_bytes;
  if (c->st.gmem_count && g_gmem_error)
    die("CPE %d made %llu direct main-memory accesses (Gload/Gstore, %llu bytes) outside DMA "
        "(TK_ATHREAD_GMEM=error)", tk_athread_myid, (unsigned long long)c->st.gmem_count,
        (unsigned long long)c->st.gmem_bytes);
  return NULL;
}

void tk_athread_register_ldm_vars(const char *source, const tk_athread_ldm_var *vars, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (g_nstatic == LDM_MAX_STATIC) die("more than %d __thread_local variables in the CPE sources", LDM_MAX_STATIC);
    g_static[g_nstatic].source = source;
    g_static[g_nstatic].name = vars[i].name;
    g_static[g_nstatic].bytes = vars[i].bytes;
    ++g_nstatic;
    g_static_bytes += (vars[i].bytes + LDM_ALIGN - 1) / LDM_ALIGN * LDM_ALIGN;
  }
}

size_t tk_athread_static_ldm_bytes(void) { return g_static_bytes; }

/* Every CPE holds the __thread_local data of all CPE sources: when they do
 * not fit, no spawn can run; the message names each variable. */
static void check_static_ldm(void) {
  if (g_static_bytes <= g_capacity) return;
  fprintf(stderr, "tk_athread: the __thread_local variables of the CPE sources need %zu bytes of LDM, "
                  "capacity %zu bytes (set TK_ATHREAD_LDM_BYTES to change it):\n",
          g_static_bytes, g_capacity);
  for (size_t i = 0; i < g_nstatic; ++i)
    fprintf(stderr, "  %s: %s, %zu bytes\n", g_static[i].source, g_static[i].name, g_static[i].bytes);
  fflush(stderr);
  abort();
}

int tk_athread_spawn(tk_athread_fn fn, void *arg) {
  if (tk_athread_myid >= 0) die("athread_spawn called on a CPE");
  if (!g_inited) tk_athread_init(); /* lenient: the real runtime needs athread_init first */
  if (g_running) die("athread_spawn while a spawn is running (call athread_join first)");
  check_static_ldm();
  g_fn = fn;
  g_arg = arg;
  for (int i = 0; i < TK_ATHREAD_CPES; ++i) {
    g_cpe[i].nblocks = 0;
    g_cpe[i].in_use = g_static_bytes; /* the __thread_local data come first */
    memset(&g_cpe[i].st, 0, sizeof g_cpe[i].st);
    g_cpe[i].phase = 0;
    g_cpe[i].st.ldm_high_water = g_static_bytes;
  }
  tk_dma_desc_reset();
  tk_dma_engine_start();
  g_running = 1;
  for (int i = 0; i < TK_ATHREAD_CPES; ++i) {
    int rc = pthread_create(&g_threads[i], NULL, cpe_main, &g_cpe[i]);
    if (rc) die("cannot start CPE thread %d: %s", i, strerror(rc));
  }
  return 0;
}

static void add_cpe(tk_athread_cpe_stats *dst, const tk_athread_cpe_stats *s) {
  dst->get_count += s->get_count;
  dst->get_bytes += s->get_bytes;
  dst->put_count += s->put_count;
  dst->put_bytes += s->put_bytes;
  dst->flops += s->flops;
  dst->ahead_count += s->ahead_count;
  dst->ahead_bytes += s->ahead_bytes;
  dst->bcast_count += s->bcast_count;
  dst->bcast_bytes += s->bcast_bytes;
  dst->bcast_ahead_count += s->bcast_ahead_count;
  dst->bcast_ahead_bytes += s->bcast_ahead_bytes;
  dst->row_bcast_count += s->row_bcast_count;
  dst->row_bcast_bytes += s->row_bcast_bytes;
  dst->row_bcast_ahead_count += s->row_bcast_ahead_count;
  dst->row_bcast_ahead_bytes += s->row_bcast_ahead_bytes;
  dst->syn_count += s->syn_count;
  dst->gmem_count += s->gmem_count;
  dst->gmem_bytes += s->gmem_bytes;
  if (s->ldm_high_water > dst->ldm_high_water) dst->ldm_high_water = s->ldm_high_water;
}

int tk_athread_join(void) {
  if (tk_athread_myid >= 0) die("athread_join called on a CPE");
  if (!g_running) return 0;
  for (int i = 0; i < TK_ATHREAD_CPES; ++i) pthread_join(g_threads[i], NULL);
  tk_dma_engine_stop(); /* transfers a CPE never waited for complete too */
  g_running = 0;
  if (tk_races_check()) abort();
  memset(&g_last, 0, sizeof g_last);
  g_last.spawns = 1;
  g_last.ldm_capacity = g_capacity;
  g_total.spawns += 1;
  g_total.ldm_capacity = g_capacity;
  for (int i = 0; i < TK_ATHREAD_CPES; ++i) {
    g_last.cpe[i] = g_cpe[i].st;
    add_cpe(&g_last.total, &g_cpe[i].st);
    add_cpe(&g_total.cpe[i], &g_cpe[i].st);
    add_cpe(&g_total.total, &g_cpe[i].st);
  }
  g_recent[(g_total.spawns - 1) % TK_ATHREAD_RECENT] = g_last;
  g_have_last = 1;
  if (getenv("TK_ATHREAD_STATS")) tk_athread_print_stats(stderr, &g_last);
  return 0;
}

int tk_athread_halt(void) {
  if (!g_inited) return 0;
  tk_athread_join();
  pthread_barrier_destroy(&g_array_bar);
  for (int i = 0; i < 8; ++i) {
    pthread_barrier_destroy(&g_row_bar[i]);
    pthread_barrier_destroy(&g_col_bar[i]);
  }
  for (int i = 0; i < TK_ATHREAD_CPES; ++i) {
    free(g_cpe[i].ldm);
    g_cpe[i].ldm = NULL;
  }
  g_inited = 0;
  return 0;
}

/* Where `ldm`, an address in CPE `from`'s LDM, lies in CPE `to`'s: the same
 * offset of the ldm_malloc arena, or of the __thread_local data (one module's
 * thread-local block has the same layout in every thread). The CPE's stack
 * has no such counterpart in the emulator, so a broadcast into it stops. */
static unsigned char *ldm_in(const cpe_state *from, const cpe_state *to, unsigned char *ldm, size_t len,
                             const char *what) {
  if (ldm >= from->ldm && ldm + len <= from->ldm + g_capacity) return to->ldm + (ldm - from->ldm);
  if (ldm >= from->stack_lo && ldm < from->stack_hi)
    die("CPE %d: %s broadcast into a stack variable: the emulator places broadcasts only into "
        "ldm_malloc blocks and __thread_local variables", (int)(from - g_cpe), what);
  return to->tls + (ldm - from->tls);
}

/* Shared by get and put: `mem` is main memory (strided), `ldm` is packed.
 * A BCAST_MODE get reads main memory once and lands at the same LDM address
 * in every CPE of the rows set in `mask` (bit r: row r); the issuer's
 * reply word counts it once, when every copy is done. */
static void dma(int to_ldm, int mode, unsigned char *mem, unsigned char *ldm, int len, void *reply,
                int mask, int stride, int bsize, const char *what) {
  cpe_state *c = need_cpe(what);
  int bcast = to_ldm && mode == BCAST_MODE;
  if (mode != PE_MODE && !bcast)
    die("CPE %d: %s mode %d: only PE_MODE (and BCAST_MODE for gets) is emulated", tk_athread_myid, what, mode);
  if (len < 0 || stride < 0) die("CPE %d: %s with len %d, stride %d", tk_athread_myid, what, len, stride);
  if (stride > 0 && bsize <= 0)
    die("CPE %d: %s with stride %d needs bsize > 0 (got %d)", tk_athread_myid, what, stride, bsize);
  if (bcast && (mask & 0xff) == 0) die("CPE %d: %s BCAST_MODE with row mask 0: no CPE receives it", tk_athread_myid, what);
  if (!to_ldm) tk_races_record(tk_athread_myid, c->phase, mem, (size_t)len, (size_t)stride, (size_t)bsize);
  if (to_ldm) c->st.get_count += 1, c->st.get_bytes += (uint64_t)len;
  else c->st.put_count += 1, c->st.put_bytes += (uint64_t)len;
  if (bcast) c->st.bcast_count += 1, c->st.bcast_bytes += (uint64_t)len;
  if (tk_athread_ahead) c->st.ahead_count += 1, c->st.ahead_bytes += (uint64_t)len;
  if (tk_athread_ahead && bcast) c->st.bcast_ahead_count += 1, c->st.bcast_ahead_bytes += (uint64_t)len;
  if (bcast && ((mask & 0xff) & ((mask & 0xff) - 1)) == 0) { /* one row */
    c->st.row_bcast_count += 1, c->st.row_bcast_bytes += (uint64_t)len;
    if (tk_athread_ahead) c->st.row_bcast_ahead_count += 1, c->st.row_bcast_ahead_bytes += (uint64_t)len;
  }
  tk_dma_job job = {to_ldm, mem, ldm, (size_t)len, (size_t)stride, (size_t)bsize, reply};
  if (!bcast) {
    tk_dma_issue(&job);
    return;
  }
  int last = -1;
  for (int i = 0; i < TK_ATHREAD_CPES; ++i)
    if (mask >> (i / 8) & 1) last = i;
  for (int i = 0; i <= last; ++i) {
    if (!(mask >> (i / 8) & 1)) continue;
    job.ldm = ldm_in(c, &g_cpe[i], ldm, (size_t)len, what);
    job.reply = i == last ? reply : NULL; /* jobs complete in order */
    tk_dma_issue(&job);
  }
}

int tk_athread_get(int mode, void *src_mem, void *dst_ldm, int len, void *reply, int mask,
                   int stride, int bsize) {
  dma(1, mode, src_mem, dst_ldm, len, reply, mask, stride, bsize, "athread_get");
  return 0;
}

int tk_athread_put(int mode, void *src_ldm, void *dst_mem, int len, void *reply, int stride,
                   int bsize) {
  dma(0, mode, dst_mem, src_ldm, len, reply, 0, stride, bsize, "athread_put");
  return 0;
}

int tk_athread_syn(int scope, int mask) {
  (void)mask; /* every CPE of the scope takes part; partial masks would deadlock */
  cpe_state *c = need_cpe("athread_syn");
  int id = (int)(c - g_cpe);
  pthread_barrier_t *b;
  switch (scope) {
  case ARRAY_SCOPE: b = &g_array_bar; break;
  case ROW_SCOPE: b = &g_row_bar[id / 8]; break;
  case COL_SCOPE: b = &g_col_bar[id % 8]; break;
  default: die("CPE %d: athread_syn scope %d unknown", id, scope); return -1;
  }
  c->st.syn_count += 1;
  pthread_barrier_wait(b);
  if (scope == ARRAY_SCOPE) c->phase += 1; /* writes on either side of it do not race */
  return 0;
}

void *tk_athread_ldm_malloc(size_t size) {
  cpe_state *c = need_cpe("ldm_malloc");
  size_t want = (size + LDM_ALIGN - 1) / LDM_ALIGN * LDM_ALIGN;
  if (want == 0) want = LDM_ALIGN;
  /* first fit among the gaps between live blocks */
  size_t start = 0, i = 0;
  for (; i < c->nblocks; ++i) {
    if (c->blocks[i].off - start >= want) break;
    start = c->blocks[i].off + c->blocks[i].size;
  }
  /* The heap is what the __thread_local data leave. */
  size_t heap = g_capacity - g_static_bytes;
  if (size > heap || want > heap || (i == c->nblocks && heap - start < want) || c->nblocks == LDM_MAX_ALLOCS)
    die("CPE %d: ldm_malloc(%zu) exceeds the LDM: %zu bytes in use, capacity %zu bytes "
        "(set TK_ATHREAD_LDM_BYTES to change it)", tk_athread_myid, size, c->in_use, g_capacity);
  memmove(&c->blocks[i + 1], &c->blocks[i], (c->nblocks - i) * sizeof(ldm_block));
  c->blocks[i].off = start;
  c->blocks[i].size = want;
  c->nblocks += 1;
  c->in_use += want;
  if (c->in_use > c->st.ldm_high_water) c->st.ldm_high_water = c->in_use;
  return c->ldm + start;
}

void tk_athread_ldm_free(void *p, size_t size, ...) {
  (void)size;
  cpe_state *c = need_cpe("ldm_free");
  if (!p) return;
  size_t off = (size_t)((unsigned char *)p - c->ldm);
  for (size_t i = 0; i < c->nblocks; ++i) {
    if (c->blocks[i].off != off) continue;
    c->in_use -= c->blocks[i].size;
    memmove(&c->blocks[i], &c->blocks[i + 1], (c->nblocks - i - 1) * sizeof(ldm_block));
    c->nblocks -= 1;
    return;
  }
  die("CPE %d: ldm_free(%p): not a block from this CPE's ldm_malloc", tk_athread_myid, p);
}

size_t tk_athread_ldm_capacity(void) { return g_inited ? g_capacity : read_capacity(); }

unsigned long tk_athread_cycles(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long)ts.tv_sec * 1000000000ul + (unsigned long)ts.tv_nsec;
}

int tk_athread_last_stats(tk_athread_stats *out) {
  if (!g_have_last) return -1;
  *out = g_last;
  return 0;
}

int tk_athread_recent_stats(unsigned back, tk_athread_stats *out) {
  if (back >= TK_ATHREAD_RECENT || back >= g_total.spawns) return -1;
  *out = g_recent[(g_total.spawns - 1 - back) % TK_ATHREAD_RECENT];
  return 0;
}

int tk_athread_total_stats(tk_athread_stats *out) {
  if (!g_have_last) return -1;
  *out = g_total;
  return 0;
}

void tk_athread_print_stats(FILE *f, const tk_athread_stats *s) {
  for (int i = 0; i < TK_ATHREAD_CPES; ++i) {
    const tk_athread_cpe_stats *c = &s->cpe[i];
    if (!c->get_count && !c->put_count && !c->ldm_high_water) continue;
    fprintf(f, "tk_athread: cpe %2d: get %llu (%llu B) put %llu (%llu B) ldm peak %llu B flops %llu", i,
            (unsigned long long)c->get_count, (unsigned long long)c->get_bytes,
            (unsigned long long)c->put_count, (unsigned long long)c->put_bytes,
            (unsigned long long)c->ldm_high_water, (unsigned long long)c->flops);
    /* What the performance model reads besides: transfers issued ahead,
       broadcasts (to one row: row), barriers. */
    if (c->ahead_count) fprintf(f, " ahead %llu (%llu B)", (unsigned long long)c->ahead_count, (unsigned long long)c->ahead_bytes);
    if (c->bcast_count) fprintf(f, " bcast %llu (%llu B)", (unsigned long long)c->bcast_count, (unsigned long long)c->bcast_bytes);
    if (c->row_bcast_count) fprintf(f, " row %llu", (unsigned long long)c->row_bcast_count);
    if (c->syn_count) fprintf(f, " syn %llu", (unsigned long long)c->syn_count);
    fputc('\n', f);
  }
  const tk_athread_cpe_stats *t = &s->total;
  fprintf(f, "tk_athread: total over %llu spawn(s): get %llu (%llu B) put %llu (%llu B) "
             "ldm peak %llu of %llu B flops %llu\n",
          (unsigned long long)s->spawns, (unsigned long long)t->get_count,
          (unsigned long long)t->get_bytes, (unsigned long long)t->put_count,
          (unsigned long long)t->put_bytes, (unsigned long long)t->ldm_high_water,
          (unsigned long long)s->ldm_capacity, (unsigned long long)t->flops);
}
