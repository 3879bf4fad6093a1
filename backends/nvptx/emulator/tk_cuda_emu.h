/* tk_cuda_emu.h: the part of tkc's PTX executor (libcuda.so.1 under
 * lib/cuda-emu/, docs/gpu.md "Running CUDA without a GPU") that the CUDA
 * driver API has no words for: the counters of the last launch and the
 * message of the last failure. Programs that use it link the executor
 * directly; everything else reaches it as a plain CUDA driver. */
#ifndef TK_CUDA_EMU_H
#define TK_CUDA_EMU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Instruction kinds counted per launch (tk_cuda_emu_stats.by_kind). */
enum tk_cuda_emu_kind {
  TK_EMU_INT,      /* integer and bit arithmetic, comparisons, moves, conversions */
  TK_EMU_FLOAT,    /* f16/bf16/f32/f64 arithmetic and special functions */
  TK_EMU_GLOBAL,   /* ld/st/atom/red on global memory (incl. generic that hit it) */
  TK_EMU_SHARED,   /* ld/st/atom on shared memory, ldmatrix */
  TK_EMU_LOCAL,    /* ld/st on local and param space */
  TK_EMU_CONTROL,  /* bra, ret, exit */
  TK_EMU_SYNC,     /* bar, membar/fence, cp.async commit/wait */
  TK_EMU_WARP,     /* shfl, vote, bar.warp.sync */
  TK_EMU_TENSOR,   /* mma */
  TK_EMU_ASYNC,    /* cp.async copies */
  TK_EMU_KIND_COUNT
};

/* Counters of one launch. Memory counters are per warp-level instruction
 * (a "request"), as a profiler counts them on hardware. */
typedef struct tk_cuda_emu_stats {
  char kernel[128];
  uint32_t grid[3], block[3];
  uint64_t thread_instructions;          /* per active lane */
  uint64_t warp_instructions;            /* per warp issue */
  uint64_t by_kind[TK_EMU_KIND_COUNT];   /* thread instructions per kind */
  /* Global loads and stores: requests, 32-byte sectors touched, bytes the
   * lanes asked for. Coalescing efficiency = bytes / (32 * sectors). */
  uint64_t global_load_requests, global_load_sectors, global_load_bytes;
  uint64_t global_store_requests, global_store_sectors, global_store_bytes;
  /* Shared loads/stores/ldmatrix: requests and wavefronts (passes through
   * the 32 banks). Without conflicts wavefronts == ideal_wavefronts (one per
   * request, more for 8- and 16-byte accesses); ways = wavefronts / ideal. */
  uint64_t shared_requests, shared_wavefronts, shared_ideal_wavefronts;
  uint32_t shared_max_ways;              /* worst single request */
  uint64_t branches, divergent_branches; /* warp-level conditional branches */
  /* Occupancy from the launch shape and the kernel's resources. Registers
   * per thread: the most 32-bit registers live at once in the PTX (64-bit
   * ones count 2), a lower bound on what ptxas allocates (PTX declares
   * virtual registers; their count says little). */
  uint32_t registers_per_thread, shared_bytes_per_block;
  uint32_t blocks_per_sm;                /* resident blocks an SM can hold */
  const char *occupancy_limit;           /* "warps", "registers", "shared memory", "blocks" */
  double theoretical_occupancy;          /* resident warps / max warps per SM */
  double achieved_occupancy;             /* also limited by the grid filling the SMs */
} tk_cuda_emu_stats;

/* Copies the counters of the most recent launch (in any thread) into *out;
 * returns 0, or -1 when nothing has been launched yet. */
int tk_cuda_emu_last_stats(tk_cuda_emu_stats *out);

/* The message of the most recent failed launch or module load ("" if none):
 * kernel, block, thread, PTX line and what went wrong. */
const char *tk_cuda_emu_last_error(void);

/* Environment (read at cuInit):
 *   TK_CUDA_EMU_STATS=1     print each launch's counters to stderr
 *   TK_CUDA_EMU_STATS=FILE  append one record line per launch to FILE instead:
 *                           tab-separated key=value fields named as the
 *                           fields above, kernel=NAME first (tkc explain
 *                           --counters FILE reads them)
 *   TK_CUDA_EMU_CHECKS=0    skip the race, cp.async and mask checks
 *                           (bounds and alignment are always checked)
 *   TK_CUDA_EMU_THREADS=N   host threads that run blocks (default: cores)
 *   TK_CUDA_EMU_WATCHDOG=N  warp instructions one block may issue before the
 *                           launch fails as an endless loop (default 2^34) */

#ifdef __cplusplus
}
#endif
#endif
