/* tkrt.c - thread pool behind tkrt_parallel_for.
 *
 * Plain C11 + pthreads so that C programs can link libtkrt.a without the C++
 * runtime.  Every non-static symbol is prefixed tkrt_; everything else is
 * file-local.
 *
 * Design: a fixed pool of (T - 1) workers created lazily on first use
 * (pthread_once).  A parallel_for publishes one job (body, ctx, n, chunking)
 * under a mutex, bumps a generation counter and wakes the workers; the caller
 * and all workers then claim chunks from an atomic counter until none are
 * left.  Chunks are guided: each takes a 1/(2T) share of what is left, at
 * least n/(16T) indices, so a few large claims start the job and small ones
 * end it (see run_chunks).  The caller waits until every worker has checked
 * in for the current generation, so a job's state is never overwritten
 * while a worker may still read it.  Calls made while the pool is busy (nested calls from a body, or
 * concurrent calls from other application threads) run serially on the
 * calling thread, so no call can deadlock.
 *
 * Lifetime: libtkrt.a is often linked into a shared object that is later
 * dlclose()d (e.g. a JIT-like test harness).  Idle workers would then sit in
 * code that is unmapped, and a later library mapped at the same address
 * would wake them through its own condition variables.  A destructor
 * therefore stops and joins the workers when the image is unloaded (and at
 * process exit).  After fork() the child has no workers; it runs serially.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tkrt.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define TKRT_API __attribute__((visibility("default")))
#define TKRT_MAX_THREADS 1024
/* The smallest chunk is n / (TKRT_MIN_CHUNK_SHARE * threads) indices: a
   thread claims at most a few dozen times per call, so claiming costs well
   under a microsecond even when each index is a few elements' work. */
#define TKRT_MIN_CHUNK_SHARE 16

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_num_threads = 1; /* including the caller */
static int g_num_workers = 0; /* started worker threads (g_num_threads - 1) */
static pthread_t g_workers[TKRT_MAX_THREADS];
static int g_shutdown = 0; /* protected by g_mutex */

static pthread_mutex_t g_call_mutex = PTHREAD_MUTEX_INITIALIZER; /* one job at a time */
static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;      /* protects job state */
static pthread_cond_t g_work_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t g_done_cv = PTHREAD_COND_INITIALIZER;

/* Current job; written by the caller under g_mutex before bumping g_gen. */
/* Both change under g_mutex only; they are atomic so that spin_until can
   watch them without it. */
static atomic_ulong g_gen = 0;
/* Workers inside the current job's chunks. A worker joins a job only while
   it is open; the caller closes it once every index is claimed and then
   waits for these alone, not for workers that have not woken up yet: on a
   loaded machine a sleeping worker takes 100-200 us to be scheduled, which
   a call of a few microseconds used to wait for every time. */
static atomic_int g_active = 0;
static int g_closed = 0; /* the current job takes no more workers */
static tkrt_body_fn g_body = NULL;
static void *g_ctx = NULL;
static int64_t g_n = 0;
static atomic_llong g_next; /* first index not yet claimed */

/* Non-zero on pool workers and on a caller while it runs a parallel job. */
static __thread int t_in_parallel = 0;
/* Non-zero on pool workers only. */
static __thread int t_is_worker = 0;

static int detect_hardware_threads(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int c = CPU_COUNT(&set);
    if (c > 0)
      return c;
  }
  long c = sysconf(_SC_NPROCESSORS_ONLN);
  return c > 0 ? (int)(c > INT_MAX ? INT_MAX : c) : 1;
}

static int read_env_threads(void) {
  const char *s = getenv("TK_NUM_THREADS");
  if (!s || !*s)
    return 0;
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v <= 0)
    return 0;
  return v > TKRT_MAX_THREADS ? TKRT_MAX_THREADS : (int)v;
}

/* How long a thread polls before sleeping on a condition variable: a
   worker after its job (the next parallel loop of the same kernel, or the
   next call, usually comes sooner), the caller for the workers' last chunks.
   Waking a sleeping thread costs tens of microseconds: a 0.5 ms 1x1
   convolution with two parallel loops ran 26% faster with the poll
   (docs/abi.md). Bounded, so that a descheduled thread costs the others at
   most this long (unbounded spinning at barriers is what made OpenMP's
   active wait 10-30x slower on shared cores, bench/Bench.cpp). */
#define TKRT_SPIN_NS 100000

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* What the two waits poll for: a generation other than `seen`, and no
   pending workers (`seen` unused). */
static int new_job(unsigned long seen) { return atomic_load_explicit(&g_gen, memory_order_acquire) != seen; }
static int workers_done(unsigned long seen) {
  (void)seen;
  return atomic_load_explicit(&g_active, memory_order_acquire) == 0;
}

/* Polls until done(arg) or TKRT_SPIN_NS pass. */
static void spin_until(int (*done)(unsigned long), unsigned long arg) {
  int64_t until = now_ns() + TKRT_SPIN_NS;
  for (int i = 1; !done(arg); ++i) {
    __builtin_ia32_pause();
    if (i % 64 == 0 && now_ns() > until)
      return;
  }
}

/* Executes chunks of the current job (n indices) until none are left. Each
   claim takes a 1/(2 threads) share of the indices left, at least
   n / (TKRT_MIN_CHUNK_SHARE threads). With a
   fixed split into 4 chunks per thread, the parallel loop of a blocked
   matmul (18 tasks of ~0.5 ms at 1024^3: chunks of 3, 3, 2, .., 2) ended
   with one thread two tasks behind: 10% of the run with one core idle.
   Shrinking claims end the job within about one task of balance. */
static void run_chunks(tkrt_body_fn body, void *ctx, int64_t n) {
  const int64_t threads = g_num_threads;
  int64_t min_chunk = n / (threads * TKRT_MIN_CHUNK_SHARE);
  if (min_chunk < 1)
    min_chunk = 1;
  int64_t begin = atomic_load_explicit(&g_next, memory_order_relaxed);
  for (;;) {
    if (begin >= n)
      return;
    int64_t left = n - begin;
    int64_t size = left / (2 * threads);
    if (size < min_chunk)
      size = min_chunk;
    if (size > left)
      size = left;
    if (!atomic_compare_exchange_weak_explicit(&g_next, &begin, begin + size, memory_order_relaxed,
                                               memory_order_relaxed))
      continue; /* begin now holds the current value */
    body(ctx, begin, begin + size);
    begin = atomic_load_explicit(&g_next, memory_order_relaxed);
  }
}

static void *worker_main(void *arg) {
  (void)arg;
  t_in_parallel = 1;
  t_is_worker = 1;
  /* Workers are created inside init_pool, before any job can be published,
     so generation 0 is the one they have "seen" (a worker may start running
     only after the first job was published; it must not skip that job). */
  unsigned long seen = 0;
  pthread_mutex_lock(&g_mutex);
  for (;;) {
    if (g_gen == seen && !g_shutdown) {
      pthread_mutex_unlock(&g_mutex);
      spin_until(new_job, seen);
      pthread_mutex_lock(&g_mutex);
    }
    while (g_gen == seen && !g_shutdown)
      pthread_cond_wait(&g_work_cv, &g_mutex);
    if (g_shutdown)
      break;
    seen = g_gen;
    if (g_closed)
      continue; /* the caller already ran it to the end; its data may be gone */
    tkrt_body_fn body = g_body;
    void *ctx = g_ctx;
    int64_t n = g_n;
    atomic_fetch_add_explicit(&g_active, 1, memory_order_relaxed);
    pthread_mutex_unlock(&g_mutex);

    run_chunks(body, ctx, n);

    pthread_mutex_lock(&g_mutex);
    if (atomic_fetch_sub_explicit(&g_active, 1, memory_order_release) == 1 && g_closed)
      pthread_cond_signal(&g_done_cv);
  }
  pthread_mutex_unlock(&g_mutex);
  return NULL;
}

/* fork(): the child inherits no workers (and possibly locked mutexes). */
static void atfork_child(void) {
  pthread_mutex_init(&g_call_mutex, NULL);
  pthread_mutex_init(&g_mutex, NULL);
  pthread_cond_init(&g_work_cv, NULL);
  pthread_cond_init(&g_done_cv, NULL);
  g_num_workers = 0;
  g_num_threads = 1;
  g_active = 0;
  g_closed = 0;
  t_in_parallel = 0;
  t_is_worker = 0;
}

/* Stops and joins the workers when this image is unloaded or the process
   exits.  Skipped when called from a worker or while a parallel_for is in
   flight on another thread (the threads are then simply left behind). */
__attribute__((destructor)) static void tkrt_shutdown_pool(void) {
  if (g_num_workers == 0 || t_is_worker)
    return;
  if (pthread_mutex_trylock(&g_call_mutex) != 0)
    return;
  pthread_mutex_lock(&g_mutex);
  g_shutdown = 1;
  pthread_cond_broadcast(&g_work_cv);
  pthread_mutex_unlock(&g_mutex);
  for (int i = 0; i < g_num_workers; ++i)
    pthread_join(g_workers[i], NULL);
  g_num_workers = 0;
  g_num_threads = 1; /* any later call (other destructors) runs serially */
  pthread_mutex_unlock(&g_call_mutex);
}

static void init_pool(void) {
  int want = read_env_threads();
  if (want <= 0)
    want = detect_hardware_threads();
  if (want > TKRT_MAX_THREADS)
    want = TKRT_MAX_THREADS;
  if (want < 1)
    want = 1;

  int started = 1; /* the caller */
  for (int i = 1; i < want; ++i) {
    if (pthread_create(&g_workers[started - 1], NULL, worker_main, NULL) != 0)
      break;
    ++started;
  }
  g_num_workers = started - 1;
  g_num_threads = started;
  pthread_atfork(NULL, NULL, atfork_child);
}

TKRT_API int tkrt_num_threads(void) {
  pthread_once(&g_once, init_pool);
  return g_num_threads;
}

TKRT_API int tkrt_parallel_for(int64_t n, tkrt_body_fn body, void *ctx) {
  if (!body)
    return -1;
  if (n <= 0)
    return 0;
  int threads = tkrt_num_threads();
  if (threads <= 1 || n == 1 || t_in_parallel ||
      pthread_mutex_trylock(&g_call_mutex) != 0) {
    body(ctx, 0, n);
    return 0;
  }

  pthread_mutex_lock(&g_mutex);
  g_body = body;
  g_ctx = ctx;
  g_n = n;
  atomic_store_explicit(&g_next, 0, memory_order_relaxed);
  g_closed = 0;
  ++g_gen;
  pthread_cond_broadcast(&g_work_cv);
  pthread_mutex_unlock(&g_mutex);

  t_in_parallel = 1;
  run_chunks(body, ctx, n);
  t_in_parallel = 0;

  /* Every index is claimed: close the job, then wait for the workers that
     joined it (they may still run their last chunks). */
  pthread_mutex_lock(&g_mutex);
  g_closed = 1;
  pthread_mutex_unlock(&g_mutex);
  spin_until(workers_done, 0);
  pthread_mutex_lock(&g_mutex);
  while (atomic_load_explicit(&g_active, memory_order_acquire) > 0)
    pthread_cond_wait(&g_done_cv, &g_mutex);
  pthread_mutex_unlock(&g_mutex);

  pthread_mutex_unlock(&g_call_mutex);
  return 0;
}
