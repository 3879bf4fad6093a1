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
/* Past the 128 TiB of an x86-64 user address space no allocator can serve
   a request; such sizes fail here (sanitizer runtimes abort on them). */
#define TKRT_ALLOC_MAX ((int64_t)1 << 47)

static pthread_mutex_t g_keep_mutex = PTHREAD_MUTEX_INITIALIZER;
static void *g_kept[TKRT_KEEP_SLOTS]; /* block starts (headers), or NULL */
static size_t g_kept_bytes = 0;

static size_t capacity_of(void *block) { return *(size_t *)block; }

/* A kept block with room for `bytes` and at most twice that, smallest
   first; removed from the kept set.  NULL when none. */
static void *take_kept(size_t bytes) {
  void *best = NULL;
  int at = -1;
  pthread_mutex_lock(&g_keep_mutex);
  for (int i = 0; i < TKRT_KEEP_SLOTS; ++i) {
    void *b = g_kept[i];
    if (!b || capacity_of(b) < bytes || capacity_of(b) / 2 > bytes)
      continue;
    if (!best || capacity_of(b) < capacity_of(best))
      best = b, at = i;
  }
  if (best) {
    g_kept[at] = NULL;
    g_kept_bytes -= capacity_of(best);
  }
  pthread_mutex_unlock(&g_keep_mutex);
  return best;
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
  void *block = size >= TKRT_KEEP_MIN ? take_kept(size) : NULL;
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
  if (capacity_of(block) >= TKRT_KEEP_MIN && keep(block))
    return;
  free(block);
}

TKRT_API void tkrt_release_memory(void) {
  pthread_mutex_lock(&g_keep_mutex);
  for (int i = 0; i < TKRT_KEEP_SLOTS; ++i) {
    free(g_kept[i]);
    g_kept[i] = NULL;
  }
  g_kept_bytes = 0;
  pthread_mutex_unlock(&g_keep_mutex);
}

/* Unloading the image (dlclose, process exit) returns the kept blocks. */
__attribute__((destructor)) static void tkrt_release_at_exit(void) { tkrt_release_memory(); }
