/* tkrt_scratch.c - the heap buffers tkc kernels allocate: `global` scratch
 * (a constructed matmul's shared packed copy of B), intermediates, and
 * buffers whose size depends on the arguments.
 *
 * A kernel allocates them when a call starts and frees them when it ends.
 * glibc serves large blocks with mmap and unmaps them on free, so every
 * call used to fault in every page again (and the OS zeroed it): 2048^3
 * SGEMM's 16 MiB copy of B cost 3-4% of the call that way (two threads).
 * Freed blocks of at least TKRT_KEEP_MIN bytes are therefore kept, up to
 * TKRT_KEEP_SLOTS of them and TKRT_KEEP_MAX bytes in all, and handed to
 * the next request they fit with at most half of them unused; a kernel
 * called in a loop then reuses its buffers.  tkrt_release_memory() (and
 * unloading the image) returns them.
 *
 * Small blocks (under TKRT_SMALL_MAX) are kept per thread instead, up to
 * TKRT_SMALL_SLOTS of them, without a lock: a buffer whose size depends on
 * the arguments and that lives inside a parallel loop is allocated once per
 * iteration, and glibc's aligned_alloc splits a chunk and frees the pieces
 * each time: keeping them made a 3x3 stride-2 avgpool (three 1.4 KB row
 * buffers per channel) 7-10% faster.  A thread's small blocks are freed
 * when it exits.
 *
 * Each block starts with a TKRT_ALIGN-byte header holding its capacity, so
 * that the pointer handed out stays TKRT_ALIGN-aligned.
 */
#include "tkrt.h"

#include <pthread.h>
#include <stdlib.h>

#define TKRT_API __attribute__((visibility("default")))
#define TKRT_ALIGN 64
#define TKRT_KEEP_MIN ((size_t)1 << 20)
#define TKRT_KEEP_SLOTS 8
#define TKRT_KEEP_MAX ((size_t)1 << 30)
#define TKRT_SMALL_MAX ((size_t)64 << 10)
#define TKRT_SMALL_SLOTS 4
/* Past the 128 TiB of an x86-64 user address space no allocator can serve
   a request; such sizes fail here (sanitizer runtimes abort on them). */
#define TKRT_ALLOC_MAX ((int64_t)1 << 47)

static pthread_mutex_t g_keep_mutex = PTHREAD_MUTEX_INITIALIZER;
static void *g_kept[TKRT_KEEP_SLOTS]; /* block starts (headers), or NULL */
static size_t g_kept_bytes = 0;

static __thread void *t_small[TKRT_SMALL_SLOTS]; /* this thread's kept small blocks */
static pthread_key_t g_small_key; /* its destructor frees them at thread exit */
static pthread_once_t g_small_once = PTHREAD_ONCE_INIT;
static int g_small_key_ok = 0;

static size_t capacity_of(void *block) { return *(size_t *)block; }

/* The slot in `slots` holding the smallest block with room for `bytes` and
   at most twice that, or -1. */
static int best_fit(void *const *slots, int n, size_t bytes) {
  int at = -1;
  for (int i = 0; i < n; ++i) {
    void *b = slots[i];
    if (!b || capacity_of(b) < bytes || capacity_of(b) / 2 > bytes)
      continue;
    if (at < 0 || capacity_of(b) < capacity_of(slots[at]))
      at = i;
  }
  return at;
}

/* A kept large block that fits `bytes` (best_fit), removed from the kept
   set.  NULL when none. */
static void *take_kept(size_t bytes) {
  void *best = NULL;
  pthread_mutex_lock(&g_keep_mutex);
  int at = best_fit(g_kept, TKRT_KEEP_SLOTS, bytes);
  if (at >= 0) {
    best = g_kept[at];
    g_kept[at] = NULL;
    g_kept_bytes -= capacity_of(best);
  }
  pthread_mutex_unlock(&g_keep_mutex);
  return best;
}

static void release_small(void) {
  for (int i = 0; i < TKRT_SMALL_SLOTS; ++i) {
    free(t_small[i]);
    t_small[i] = NULL;
  }
}

static void release_small_at_thread_exit(void *unused) {
  (void)unused;
  release_small();
}

static void create_small_key(void) {
  g_small_key_ok = pthread_key_create(&g_small_key, release_small_at_thread_exit) == 0;
}

/* Keeps the small `block` in a free slot of this thread; returns whether it
   did.  Only a thread whose exit will free it keeps one (the key's value is
   what makes its destructor run). */
static int keep_small(void *block) {
  pthread_once(&g_small_once, create_small_key);
  if (!g_small_key_ok)
    return 0;
  for (int i = 0; i < TKRT_SMALL_SLOTS; ++i)
    if (!t_small[i]) {
      if (!pthread_getspecific(g_small_key) && pthread_setspecific(g_small_key, t_small) != 0)
        return 0;
      t_small[i] = block;
      return 1;
    }
  return 0;
}

static void *take_small(size_t bytes) {
  int at = best_fit(t_small, TKRT_SMALL_SLOTS, bytes);
  if (at < 0)
    return NULL;
  void *block = t_small[at];
  t_small[at] = NULL;
  return block;
}

/* Keeps `block` if there is a free slot and room under TKRT_KEEP_MAX;
   returns whether it did. */
static int keep(void *block) {
  size_t cap = capacity_of(block);
  int kept = 0;
  pthread_mutex_lock(&g_keep_mutex);
  for (int i = 0; i < TKRT_KEEP_SLOTS && !kept; ++i)
    if (!g_kept[i] && g_kept_bytes + cap <= TKRT_KEEP_MAX) {
      g_kept[i] = block;
      g_kept_bytes += cap;
      kept = 1;
    }
  pthread_mutex_unlock(&g_keep_mutex);
  return kept;
}

TKRT_API void *tkrt_alloc(int64_t bytes) {
  if (bytes < 0 || bytes > TKRT_ALLOC_MAX)
    return NULL;
  size_t size = ((size_t)bytes + TKRT_ALIGN - 1) / TKRT_ALIGN * TKRT_ALIGN;
  void *block = size >= TKRT_KEEP_MIN ? take_kept(size) : size < TKRT_SMALL_MAX ? take_small(size) : NULL;
  if (!block) {
    block = aligned_alloc(TKRT_ALIGN, TKRT_ALIGN + size);
    if (!block)
      return NULL;
    *(size_t *)block = size;
  }
  return (char *)block + TKRT_ALIGN;
}

TKRT_API void tkrt_free(void *ptr) {
  if (!ptr)
    return;
  void *block = (char *)ptr - TKRT_ALIGN;
  size_t cap = capacity_of(block);
  if (cap >= TKRT_KEEP_MIN ? keep(block) : cap < TKRT_SMALL_MAX && keep_small(block))
    return;
  free(block);
}

TKRT_API void tkrt_release_memory(void) {
  release_small();
  pthread_mutex_lock(&g_keep_mutex);
  for (int i = 0; i < TKRT_KEEP_SLOTS; ++i) {
    free(g_kept[i]);
    g_kept[i] = NULL;
  }
  g_kept_bytes = 0;
  pthread_mutex_unlock(&g_keep_mutex);
}

/* Unloading the image (dlclose, process exit) returns the kept blocks (the
   small ones of the thread that unloads it) and deletes the key, whose
   destructor would otherwise run unloaded code when another thread exits
   (that thread's small blocks are left to the system).  Priority 101 runs
   it after the default-priority destructors, so tkrt's workers, joined by
   tkrt_shutdown_pool, have freed theirs already. */
__attribute__((destructor(101))) static void tkrt_release_at_exit(void) {
  tkrt_release_memory();
  if (g_small_key_ok) {
    g_small_key_ok = 0;
    pthread_key_delete(g_small_key);
  }
}
