/* DMA transfers, done at issue or by an engine thread (dma_engine.h). */
#define _GNU_SOURCE
#include "dma_engine.h"

#include "tk_athread.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void copy(const tk_dma_job *j) {
  unsigned char *mem = j->mem;
  if (j->gap == 0) {
    if (j->to_ldm) memcpy(j->ldm, mem, j->len);
    else memcpy(mem, j->ldm, j->len);
  } else {
    /* bsize bytes per block, `gap` bytes skipped in main memory between
     * blocks; a final partial block carries the rest of len. */
    for (size_t done = 0; done < j->len; done += j->bsize, mem += j->bsize + j->gap) {
      size_t k = j->len - done < j->bsize ? j->len - done : j->bsize;
      if (j->to_ldm) memcpy(j->ldm + done, mem, k);
      else memcpy(mem, j->ldm + done, k);
    }
  }
  if (j->reply) __atomic_fetch_add((int *)j->reply, 1, __ATOMIC_SEQ_CST);
}

/* A delayed transfer completes no sooner than this after it was issued, so a
 * CPE that uses its buffer right away finds it not there yet. */
#define DELAY_NS 500000L

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

typedef struct {
  tk_dma_job job;
  long long due;
} queued;

static int g_mode = -1; /* -1 unread, 0 at issue, 1 delayed */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static queued *g_queue;
static size_t g_head, g_count, g_cap;
static int g_running;
static pthread_t g_engine;

void tk_athread_yield(void) { sched_yield(); }

int tk_dma_delayed(void) {
  if (g_mode < 0) {
    const char *s = getenv("TK_ATHREAD_DMA");
    g_mode = s && strcmp(s, "delayed") == 0;
  }
  return g_mode;
}

void tk_dma_issue(const tk_dma_job *j) {
  if (!tk_dma_delayed()) {
    copy(j);
    return;
  }
  if (j->to_ldm) memset(j->ldm, 0xff, j->len);
  pthread_mutex_lock(&g_lock);
  if (g_head + g_count == g_cap) {
    if (g_head > 0) { /* slide the live jobs to the front */
      memmove(g_queue, g_queue + g_head, g_count * sizeof(queued));
      g_head = 0;
    }
    if (g_count == g_cap) {
      size_t cap = g_cap ? 2 * g_cap : 256;
      queued *q = realloc(g_queue, cap * sizeof(queued));
      if (!q) {
        fprintf(stderr, "tk_athread: out of memory queueing DMA\n");
        abort();
      }
      g_queue = q;
      g_cap = cap;
    }
  }
  queued q = {*j, now_ns() + DELAY_NS};
  g_queue[g_head + g_count++] = q;
  pthread_mutex_unlock(&g_lock);
}

/* Does what is queued, in order, each job once it is due (all of them at
 * once when the spawn is over), until stopped with an empty queue. */
static void *engine(void *unused) {
  (void)unused;
  struct timespec pause = {0, 50000};
  for (;;) {
    pthread_mutex_lock(&g_lock);
    int running = g_running, ready = g_count > 0 && (!running || g_queue[g_head].due <= now_ns());
    tk_dma_job j;
    if (ready) j = g_queue[g_head++].job, g_count--;
    int empty = g_count == 0 && !ready;
    pthread_mutex_unlock(&g_lock);
    if (ready) copy(&j);
    else if (empty && !running) return NULL;
    else nanosleep(&pause, NULL);
  }
}

void tk_dma_engine_start(void) {
  if (!tk_dma_delayed()) return;
  g_running = 1;
  if (pthread_create(&g_engine, NULL, engine, NULL)) {
    fprintf(stderr, "tk_athread: cannot start the DMA engine thread\n");
    abort();
  }
}

void tk_dma_engine_stop(void) {
  if (!tk_dma_delayed()) return;
  pthread_mutex_lock(&g_lock);
  g_running = 0;
  pthread_mutex_unlock(&g_lock);
  pthread_join(g_engine, NULL);
}
