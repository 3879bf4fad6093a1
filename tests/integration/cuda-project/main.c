/* Device memory through the tkrt_cuda API, the tk ops on it, the results
 * copied back and compared with the host's. With TK_TEST_EMU_STATS, also
 * the executor's counters of the last launch (tk_cuda_emu.h). */
#include "scale.h"
#include "tkrt_cuda.h"
#include "vadd.h"
#ifdef TK_TEST_EMU_STATS
#include "tk_cuda_emu.h"
#endif

#include <stdio.h>
#include <stdlib.h>

#define N 1000 /* not a multiple of any block size */

static void check(const char *what, int status) {
  if (status != 0) {
    fprintf(stderr, "FAIL: %s returned status %d%s\n", what, status,
            status == TKRT_CUDA_NO_DRIVER ? " (no CUDA driver: set TK_CUDA_DRIVER)" : "");
    exit(1);
  }
}

int main(void) {
  static float x[N], y[N], z[N], w[N];
  /* Quarters: every sum and product below is exact in f32. */
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i * 0.25f - 100.0f;
    y[i] = (float)(N - i) * 0.5f;
  }
  const size_t bytes = sizeof x;
  void *dx = NULL, *dy = NULL, *dz = NULL, *dw = NULL;
  check("tkrt_cuda_init", tkrt_cuda_init());
  check("tkrt_cuda_alloc", tkrt_cuda_alloc(&dx, (int64_t)bytes, NULL));
  check("tkrt_cuda_alloc", tkrt_cuda_alloc(&dy, (int64_t)bytes, NULL));
  check("tkrt_cuda_alloc", tkrt_cuda_alloc(&dz, (int64_t)bytes, NULL));
  check("tkrt_cuda_alloc", tkrt_cuda_alloc(&dw, (int64_t)bytes, NULL));
  check("tkrt_cuda_memcpy_to_device", tkrt_cuda_memcpy_to_device(dx, x, bytes));
  check("tkrt_cuda_memcpy_to_device", tkrt_cuda_memcpy_to_device(dy, y, bytes));

  check("vadd", vadd(dx, dy, dz, N, NULL));   /* cuda (sm_90) */
  check("scale", scale(dz, dw, N, NULL));     /* cuda-sm_80, on vadd's output */
  check("tkrt_cuda_synchronize", tkrt_cuda_synchronize(NULL));
  check("tkrt_cuda_memcpy_to_host", tkrt_cuda_memcpy_to_host(z, dz, bytes));
  check("tkrt_cuda_memcpy_to_host", tkrt_cuda_memcpy_to_host(w, dw, bytes));

  int bad = 0;
  for (int i = 0; i < N; ++i) {
    float want_z = x[i] + y[i], want_w = want_z * 4.0f - 1.0f;
    if (z[i] != want_z || w[i] != want_w) {
      if (bad++ < 5)
        fprintf(stderr, "FAIL: [%d] vadd %g (want %g), scale %g (want %g)\n", i, z[i], want_z, w[i], want_w);
    }
  }
  if (bad) {
    fprintf(stderr, "FAIL: %d of %d elements wrong\n", bad, N);
    return 1;
  }
#ifdef TK_TEST_EMU_STATS
  tk_cuda_emu_stats st;
  if (tk_cuda_emu_last_stats(&st) != 0 || st.thread_instructions == 0) {
    fprintf(stderr, "FAIL: the executor recorded no launch\n");
    return 1;
  }
  uint64_t threads = (uint64_t)st.grid[0] * st.grid[1] * st.grid[2] * st.block[0] * st.block[1] * st.block[2];
  if (threads < N) {
    fprintf(stderr, "FAIL: last launch %s ran %llu threads for %d elements\n", st.kernel,
            (unsigned long long)threads, N);
    return 1;
  }
  printf("executor: last kernel %s, grid %u, block %u, %llu thread instructions\n", st.kernel, st.grid[0],
         st.block[0], (unsigned long long)st.thread_instructions);
#endif
  check("tkrt_cuda_free", tkrt_cuda_free(dx, NULL));
  check("tkrt_cuda_free", tkrt_cuda_free(dy, NULL));
  check("tkrt_cuda_free", tkrt_cuda_free(dz, NULL));
  check("tkrt_cuda_free", tkrt_cuda_free(dw, NULL));
  check("tkrt_cuda_synchronize", tkrt_cuda_synchronize(NULL));
  printf("vadd and scale on %d elements: ok\n", N);
  return 0;
}
