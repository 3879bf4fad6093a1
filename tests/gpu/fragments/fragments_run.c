/* fragments_run.c: checks the register layouts of mma.m16n8k16 (f16, bf16),
 * ldmatrix (.x1/.x2/.x4, with and without .trans) and the zero fill of
 * cp.async against tables written from NVIDIA's PTX ISA manual, by running
 * the kernels of fragments.cu (PTX text, given as argv[1]) through the CUDA
 * driver API: on tkc's PTX executor (lib/cuda-emu/libcuda.so.1) in the test
 * suite, or on a real GPU when linked against the NVIDIA driver.
 *
 * The kernels move raw per-lane registers to and from global memory; every
 * element <-> (lane, register, half) mapping is in the tables below. A
 * driver whose instructions used any other layout produces wrong values.
 *
 * Prints one line per case and "N failure(s)"; exits 0 only if all pass.
 * C99, <cuda.h> only. */

#include <cuda.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DETAILS 8 /* mismatch lines printed per case */

static int g_failures;

/* ------------------------------------------------------------------------ */
/* Driver helpers                                                           */
/* ------------------------------------------------------------------------ */

static const char *err_name(CUresult r) {
  const char *n = NULL;
  if (cuGetErrorName(r, &n) != CUDA_SUCCESS || !n) return "unknown CUresult";
  return n;
}

/* Records the first failing driver call of a case in *err (a static string). */
#define DRV(call, err)                                                      \
  do {                                                                      \
    CUresult r_ = (call);                                                   \
    if (r_ != CUDA_SUCCESS) {                                               \
      static char buf_[256];                                                \
      snprintf(buf_, sizeof buf_, "%s: %s", #call, err_name(r_));           \
      *(err) = buf_;                                                        \
      return -1;                                                            \
    }                                                                       \
  } while (0)

static CUmodule g_module;

/* One block of one warp; args are device pointers. Copies `nout` bytes of
 * the last buffer back to `out`. bufs[i] <- host[i] (sizes[i] bytes). */
static int launch_warp(const char *kernel, int nbufs, const void *const *host, const size_t *sizes,
                       void *out, const char **err) {
  CUfunction fn;
  CUdeviceptr dev[8];
  void *params[8];
  int i;
  DRV(cuModuleGetFunction(&fn, g_module, kernel), err);
  for (i = 0; i < nbufs; i++) {
    DRV(cuMemAlloc_v2(&dev[i], sizes[i]), err);
    if (host[i]) DRV(cuMemcpyHtoD_v2(dev[i], host[i], sizes[i]), err);
    params[i] = &dev[i];
  }
  DRV(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL), err);
  DRV(cuCtxSynchronize(), err);
  DRV(cuMemcpyDtoH_v2(out, dev[nbufs - 1], sizes[nbufs - 1]), err);
  for (i = 0; i < nbufs; i++) DRV(cuMemFree_v2(dev[i]), err);
  return 0;
}

static void report(const char *name, int mismatches, const char *err) {
  if (err) {
    printf("FAIL %s: %s\n", name, err);
    g_failures++;
  } else if (mismatches) {
    printf("FAIL %s: %d mismatch(es)\n", name, mismatches);
    g_failures++;
  } else {
    printf("ok   %s\n", name);
  }
  fflush(stdout);
}

/* ------------------------------------------------------------------------ */
/* f16 / bf16 conversions (round to nearest even)                           */
/* ------------------------------------------------------------------------ */

static uint32_t f32_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  return x;
}

static float bits_f32(uint32_t x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static uint16_t f32_to_f16(float f) {
  uint32_t x = f32_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = (int32_t)((x >> 23) & 0xffu);
  uint32_t man = x & 0x7fffffu;
  int32_t e;
  uint32_t h, rem, half, shift;
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0u));
  e = exp - 127 + 15;
  if (e >= 0x1f) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) { /* f16 subnormal (or zero) */
    if (e < -10) return (uint16_t)sign;
    man |= 0x800000u;
    shift = (uint32_t)(14 - e);
    h = man >> shift;
    rem = man & ((1u << shift) - 1u);
    half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (h & 1u))) h++;
    return (uint16_t)(sign | h);
  }
  h = ((uint32_t)e << 10) | (man >> 13);
  rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++; /* a carry moves into the exponent */
  return (uint16_t)(sign | h);
}

static float f16_to_f32(uint16_t h) {
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  float v;
  if (e == 0) v = ldexpf((float)m, -24);
  else if (e == 31) v = m ? NAN : INFINITY;
  else v = ldexpf((float)(m | 0x400u), (int)e - 25);
  return (h & 0x8000u) ? -v : v;
}

static uint16_t f32_to_bf16(float f) {
  uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

static float bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

/* ------------------------------------------------------------------------ */
/* mma.m16n8k16 fragment tables                                             */
/*                                                                          */
/* PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type"    */
/* (figures "MMA .m16n8k16 fragment layout for matrix A / matrix B with     */
/* .f16/.bf16 type" and "... for accumulator matrix C/D with .f16/.f32      */
/* type"). With groupID = %laneid >> 2, threadID_in_group = %laneid % 4:    */
/*   A (16x16, row): a0..a7, two per .f16x2/.bf16x2 register, low half first */
/*     row = groupID      for ai where 0 <= i < 2 || 4 <= i < 6             */
/*           groupID + 8  otherwise                                         */
/*     col = threadID_in_group*2 + (i & 1)      for ai where i < 4          */
/*           threadID_in_group*2 + (i & 1) + 8  for ai where i >= 4         */
/*   B (16x8, col): b0..b3, two per register, low half first                */
/*     row = threadID_in_group*2 + (i & 1)      for bi where i < 2          */
/*           threadID_in_group*2 + (i & 1) + 8  for bi where i >= 2         */
/*     col = groupID                                                        */
/*   C, D (16x8, f32): c0..c3, one per register                             */
/*     row = groupID for c0, c1;  groupID + 8 for c2, c3                    */
/*     col = threadID_in_group*2 + (i & 1)                                  */
/* ------------------------------------------------------------------------ */

typedef struct {
  int row, col;
} rc_t;

static rc_t A_TAB[32][8], B_TAB[32][4], CD_TAB[32][4];

static void build_mma_tables(void) {
  int lane, i;
  for (lane = 0; lane < 32; lane++) {
    int g = lane >> 2, t = lane % 4;
    for (i = 0; i < 8; i++) {
      A_TAB[lane][i].row = ((i >= 0 && i < 2) || (i >= 4 && i < 6)) ? g : g + 8;
      A_TAB[lane][i].col = i < 4 ? t * 2 + (i & 1) : t * 2 + (i & 1) + 8;
    }
    for (i = 0; i < 4; i++) {
      B_TAB[lane][i].row = i < 2 ? t * 2 + (i & 1) : t * 2 + (i & 1) + 8;
      B_TAB[lane][i].col = g;
      CD_TAB[lane][i].row = i < 2 ? g : g + 8;
      CD_TAB[lane][i].col = t * 2 + (i & 1);
    }
  }
}

/* Rows of the manual's figures, cell by cell ("T<lane>:<element>"),
 * against the tables: A rows 0 and 8, B columns 0 and 7 (read down), C/D
 * rows 0 and 15. Catches a slip between the formulas and the tables. */
static int check_mma_tables(void) {
  static const struct {
    char mat;  /* 'A', 'B', 'C' */
    int fixed; /* the row (A, C) or column (B) the figure line shows */
    const char *cells;
  } fig[] = {
      {'A', 0, "T0:a0 T0:a1 T1:a0 T1:a1 T2:a0 T2:a1 T3:a0 T3:a1 T0:a4 T0:a5 T1:a4 T1:a5 T2:a4 T2:a5 T3:a4 T3:a5"},
      {'A', 8, "T0:a2 T0:a3 T1:a2 T1:a3 T2:a2 T2:a3 T3:a2 T3:a3 T0:a6 T0:a7 T1:a6 T1:a7 T2:a6 T2:a7 T3:a6 T3:a7"},
      {'B', 0, "T0:b0 T0:b1 T1:b0 T1:b1 T2:b0 T2:b1 T3:b0 T3:b1 T0:b2 T0:b3 T1:b2 T1:b3 T2:b2 T2:b3 T3:b2 T3:b3"},
      {'B', 7,
       "T28:b0 T28:b1 T29:b0 T29:b1 T30:b0 T30:b1 T31:b0 T31:b1 T28:b2 T28:b3 T29:b2 T29:b3 T30:b2 T30:b3 T31:b2 "
       "T31:b3"},
      {'C', 0, "T0:c0 T0:c1 T1:c0 T1:c1 T2:c0 T2:c1 T3:c0 T3:c1"},
      {'C', 15, "T28:c2 T28:c3 T29:c2 T29:c3 T30:c2 T30:c3 T31:c2 T31:c3"},
  };
  int bad = 0;
  size_t f;
  for (f = 0; f < sizeof fig / sizeof fig[0]; f++) {
    const char *p = fig[f].cells;
    int pos = 0, lane, elem, n;
    char c;
    while (sscanf(p, " T%d:%c%d%n", &lane, &c, &elem, &n) == 3) {
      rc_t rc = fig[f].mat == 'A' ? A_TAB[lane][elem] : fig[f].mat == 'B' ? B_TAB[lane][elem] : CD_TAB[lane][elem];
      int want_row = fig[f].mat == 'B' ? pos : fig[f].fixed;
      int want_col = fig[f].mat == 'B' ? fig[f].fixed : pos;
      if (rc.row != want_row || rc.col != want_col) {
        printf("  table %c: T%d:%c%d is (%d,%d), the figure has (%d,%d)\n", fig[f].mat, lane, c, elem, rc.row,
               rc.col, want_row, want_col);
        bad++;
      }
      p += n;
      pos++;
    }
  }
  return bad;
}

/* Exactly representable test values (multiples of 1/8, 1/4, 1/16 with few
 * significant bits): every product and partial sum of D = A*B + C is exact
 * in f32, whatever the order of accumulation. */
static float pat_a(int i, int k) { return (float)(((i * 16 + k) * 37 + 11) % 61 - 30) / 8.0f; }
static float pat_b(int k, int n) { return (float)(((k * 8 + n) * 29 + 5) % 53 - 26) / 4.0f; }
static float pat_c(int i, int n) { return (float)(((i * 8 + n) * 17 + 3) % 41 - 20) / 16.0f; }

enum { MMA_C_ONLY, MMA_B_BY_IDENTITY, MMA_A_LOW, MMA_A_HIGH, MMA_FULL };

static void run_mma(int bf16, int which) {
  static const char *what[] = {
      "A = B = 0: D = C (C and D layout)",
      "A = identity: D = B (B layout)",
      "B selects k = n: D = A[:, 0:8] (A layout)",
      "B selects k = n + 8: D = A[:, 8:16] (A layout)",
      "D = A*B + C",
  };
  char name[160];
  float A[16][16], B[16][8], C[16][8];
  double ref[16][8];
  uint32_t a_regs[32 * 4], b_regs[32 * 2];
  float c_regs[32 * 4], d_regs[32 * 4];
  const void *host[4];
  size_t sizes[4];
  const char *err = NULL;
  int i, k, n, lane, r, mism = 0;

  snprintf(name, sizeof name, "mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32: %s", bf16 ? "bf16" : "f16",
           bf16 ? "bf16" : "f16", what[which]);
  for (i = 0; i < 16; i++)
    for (k = 0; k < 16; k++) {
      float v = 0.0f;
      if (which == MMA_B_BY_IDENTITY) v = (i == k) ? 1.0f : 0.0f;
      else if (which != MMA_C_ONLY) v = pat_a(i, k);
      A[i][k] = v;
    }
  for (k = 0; k < 16; k++)
    for (n = 0; n < 8; n++) {
      float v = 0.0f;
      if (which == MMA_B_BY_IDENTITY || which == MMA_FULL) v = pat_b(k, n);
      else if (which == MMA_A_LOW) v = (k == n) ? 1.0f : 0.0f;
      else if (which == MMA_A_HIGH) v = (k == n + 8) ? 1.0f : 0.0f;
      B[k][n] = v;
    }
  for (i = 0; i < 16; i++)
    for (n = 0; n < 8; n++) C[i][n] = (which == MMA_C_ONLY || which == MMA_FULL) ? pat_c(i, n) : 0.0f;

  /* Round the inputs to the element type (all exact here), build the
   * per-lane registers from the tables, and the reference from the same
   * rounded values. */
  for (i = 0; i < 16; i++)
    for (k = 0; k < 16; k++) A[i][k] = bf16 ? bf16_to_f32(f32_to_bf16(A[i][k])) : f16_to_f32(f32_to_f16(A[i][k]));
  for (k = 0; k < 16; k++)
    for (n = 0; n < 8; n++) B[k][n] = bf16 ? bf16_to_f32(f32_to_bf16(B[k][n])) : f16_to_f32(f32_to_f16(B[k][n]));
  for (lane = 0; lane < 32; lane++) {
    for (r = 0; r < 4; r++) {
      rc_t lo = A_TAB[lane][2 * r], hi = A_TAB[lane][2 * r + 1];
      uint16_t l = bf16 ? f32_to_bf16(A[lo.row][lo.col]) : f32_to_f16(A[lo.row][lo.col]);
      uint16_t h = bf16 ? f32_to_bf16(A[hi.row][hi.col]) : f32_to_f16(A[hi.row][hi.col]);
      a_regs[lane * 4 + r] = (uint32_t)l | ((uint32_t)h << 16);
    }
    for (r = 0; r < 2; r++) {
      rc_t lo = B_TAB[lane][2 * r], hi = B_TAB[lane][2 * r + 1];
      uint16_t l = bf16 ? f32_to_bf16(B[lo.row][lo.col]) : f32_to_f16(B[lo.row][lo.col]);
      uint16_t h = bf16 ? f32_to_bf16(B[hi.row][hi.col]) : f32_to_f16(B[hi.row][hi.col]);
      b_regs[lane * 2 + r] = (uint32_t)l | ((uint32_t)h << 16);
    }
    for (r = 0; r < 4; r++) c_regs[lane * 4 + r] = C[CD_TAB[lane][r].row][CD_TAB[lane][r].col];
  }
  for (i = 0; i < 16; i++)
    for (n = 0; n < 8; n++) {
      double s = C[i][n];
      for (k = 0; k < 16; k++) s += (double)A[i][k] * (double)B[k][n];
      ref[i][n] = s;
    }

  for (i = 0; i < 32 * 4; i++) d_regs[i] = NAN;
  host[0] = a_regs, sizes[0] = sizeof a_regs;
  host[1] = b_regs, sizes[1] = sizeof b_regs;
  host[2] = c_regs, sizes[2] = sizeof c_regs;
  host[3] = d_regs, sizes[3] = sizeof d_regs;
  if (launch_warp(bf16 ? "mma_bf16_dump" : "mma_f16_dump", 4, host, sizes, d_regs, &err) == 0) {
    /* Values are multiples of 1/32; a 1e-3 tolerance allows nothing but
     * an inexact accumulation. */
    for (lane = 0; lane < 32; lane++)
      for (r = 0; r < 4; r++) {
        rc_t rc = CD_TAB[lane][r];
        float got = d_regs[lane * 4 + r];
        double want = ref[rc.row][rc.col];
        if (!(fabs((double)got - want) <= 1e-3)) {
          if (mism < MAX_DETAILS)
            printf("  lane %2d d%d = D[%d][%d]: expected %g, got %g\n", lane, r, rc.row, rc.col, want,
                   (double)got);
          mism++;
        }
      }
  }
  report(name, mism, err);
}

/* ------------------------------------------------------------------------ */
/* ldmatrix tables                                                          */
/*                                                                          */
/* PTX ISA, "Warp-level matrix load instruction: ldmatrix": for .num = .x1, */
/* .x2, .x4, threads 0-7 hold the row addresses of matrix 0 (addr0-addr7),  */
/* threads 8-15 those of matrix 1, 16-23 of matrix 2, 24-31 of matrix 3;    */
/* for .x1 the addresses of threads 8-31, for .x2 those of 16-31, are not   */
/* used (on sm_80, the target here). Figure "ldmatrix fragment" (.m8n8,     */
/* 16-bit elements): thread i receives row i/4 (groupID), elements          */
/* 2*(i%4) and 2*(i%4)+1 (low half first) of a matrix in one .b32 register, */
/* matrix j going to destination register j. With .trans the matrix is     */
/* read in column-major order: thread i receives elements                   */
/* [2*(i%4)][i/4] and [2*(i%4)+1][i/4].                                     */
/*                                                                          */
/* The kernel's tile: 64 rows of 40 16-bit elements, tile[x] = x.           */
/* ------------------------------------------------------------------------ */

#define LDM_ROWS 64
#define LDM_STRIDE 40

/* Element offset of the row that lane `lane` addresses, when it addresses
 * row j of matrix m: rows scattered over the tile, each matrix at its own
 * column (all 16-byte aligned). */
static uint32_t ldm_row_offset(int m, int j) {
  int row = (m * 17 + j * 7 + 3) % LDM_ROWS;
  int col = 8 * ((m * 3 + 1) % 5);
  return (uint32_t)(row * LDM_STRIDE + col);
}

/* A valid row the instruction must not use (lanes past 8*num). */
static uint32_t ldm_decoy_offset(int lane) { return (uint32_t)(((lane * 11 + 5) % LDM_ROWS) * LDM_STRIDE + 24); }

static void run_ldmatrix(int num, int trans) {
  char name[96], kernel[32];
  uint32_t offs[32], out[32 * 4];
  const void *host[2];
  size_t sizes[2];
  const char *err = NULL;
  int lane, m, mism = 0;

  snprintf(name, sizeof name, "ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16", num, trans ? ".trans" : "");
  snprintf(kernel, sizeof kernel, "ldmatrix_x%d%s", num, trans ? "_trans" : "");
  for (lane = 0; lane < 32; lane++)
    offs[lane] = lane < 8 * num ? ldm_row_offset(lane / 8, lane % 8) : ldm_decoy_offset(lane);
  for (lane = 0; lane < 32 * 4; lane++) out[lane] = 0xffffffffu;
  host[0] = offs, sizes[0] = sizeof offs;
  host[1] = out, sizes[1] = sizeof out;
  if (launch_warp(kernel, 2, host, sizes, out, &err) == 0) {
    for (lane = 0; lane < 32; lane++)
      for (m = 0; m < num; m++) {
        /* Element [row][col] of matrix m is tile[offs[8m + row] + col]. */
        int g = lane / 4, t = lane % 4;
        int r_lo = trans ? 2 * t : g, c_lo = trans ? g : 2 * t;
        int r_hi = trans ? 2 * t + 1 : g, c_hi = trans ? g : 2 * t + 1;
        uint32_t want_lo = ldm_row_offset(m, r_lo) + (uint32_t)c_lo;
        uint32_t want_hi = ldm_row_offset(m, r_hi) + (uint32_t)c_hi;
        uint32_t got = out[lane * 4 + m];
        uint32_t got_lo = got & 0xffffu, got_hi = got >> 16;
        if (got_lo != want_lo || got_hi != want_hi) {
          if (mism < MAX_DETAILS)
            printf("  lane %2d r%d (matrix %d): expected lo = M%d[%d][%d] = tile[%u], hi = M%d[%d][%d] = tile[%u]; "
                   "got lo = tile[%u], hi = tile[%u] (0x%08x)\n",
                   lane, m, m, m, r_lo, c_lo, want_lo, m, r_hi, c_hi, want_hi, got_lo, got_hi, got);
          mism++;
        }
      }
  }
  report(name, mism, err);
}

/* ------------------------------------------------------------------------ */
/* cp.async                                                                 */
/*                                                                          */
/* PTX ISA, "Data Movement and Conversion Instructions: cp.async": copies   */
/* cp-size bytes (4, 8 or 16; .cg only 16) from global to shared; with the  */
/* optional src-size operand (< cp-size), src-size bytes are copied and the */
/* remaining cp-size - src-size bytes of the destination are filled with    */
/* zeros. "cp.async.commit_group" closes a group, "cp.async.wait_group 0"   */
/* waits for all committed groups. The kernel writes nothing else past     */
/* cp-size: those bytes keep the 0xAB fill.                                 */
/* ------------------------------------------------------------------------ */

#define SRC_BYTES 2048

static int cp_size_of_lane(int lane) { return lane < 8 ? 16 : lane < 16 ? 4 : lane < 24 ? 8 : 16; }

static void run_cp_async(void) {
  static const uint32_t src_size[32] = {
      16, 0, 1, 5, 8, 12, 15, 16, /* .cg, 16 */
      4,  0, 1, 2, 3, 4,  4,  2,  /* .ca, 4 */
      8,  0, 1, 3, 4, 7,  8,  5,  /* .ca, 8 */
      16, 0, 2, 6, 9, 13, 15, 16, /* .ca, 16 */
  };
  static const char *case_name[] = {
      "cp.async.cg.shared.global 16 with src-size 0..16 (zero fill)",
      "cp.async.ca.shared.global 4 with src-size 0..4 (zero fill)",
      "cp.async.ca.shared.global 8 with src-size 0..8 (zero fill)",
      "cp.async.ca.shared.global 16 with src-size 0..16 (zero fill)",
      "cp.async.cg.shared.global 16 in a second commit_group, wait_group 0",
  };
  uint8_t src[SRC_BYTES], out[1024];
  uint32_t params[96];
  const void *host[3];
  size_t sizes[3];
  const char *err = NULL;
  int mism[5] = {0, 0, 0, 0, 0};
  int lane, b, c;

  for (b = 0; b < SRC_BYTES; b++) src[b] = (uint8_t)(b % 251 + 1); /* never 0 */
  for (lane = 0; lane < 32; lane++) {
    uint32_t cs = (uint32_t)cp_size_of_lane(lane);
    params[lane] = ((uint32_t)(lane * 13 + 5) % (1024u / cs)) * cs; /* aligned to cp-size */
    params[32 + lane] = src_size[lane];
    params[64 + lane] = ((uint32_t)(lane * 7 + 3) % 120u) * 16u;
  }
  memset(out, 0, sizeof out);
  host[0] = src, sizes[0] = sizeof src;
  host[1] = params, sizes[1] = sizeof params;
  host[2] = out, sizes[2] = sizeof out;
  if (launch_warp("cp_async_zero_fill", 3, host, sizes, out, &err) == 0) {
    for (lane = 0; lane < 32; lane++) {
      int cs = cp_size_of_lane(lane), ss = (int)src_size[lane];
      c = lane / 8;
      for (b = 0; b < 16; b++) {
        int want = b < ss ? src[params[lane] + (uint32_t)b] : b < cs ? 0 : 0xAB;
        int got = out[lane * 16 + b];
        if (got != want) {
          if (mism[c] < MAX_DETAILS)
            printf("  lane %2d (cp-size %d, src-size %d, src byte %u) shared byte %d: expected 0x%02x, got 0x%02x\n",
                   lane, cs, ss, params[lane], b, want, got);
          mism[c]++;
        }
      }
      for (b = 0; b < 16; b++) {
        int want = src[params[64 + lane] + (uint32_t)b];
        int got = out[512 + lane * 16 + b];
        if (got != want) {
          if (mism[4] < MAX_DETAILS)
            printf("  lane %2d (second group, src byte %u) shared byte %d: expected 0x%02x, got 0x%02x\n", lane,
                   params[64 + lane], 512 + lane * 16 + b, want, got);
          mism[4]++;
        }
      }
    }
  }
  for (c = 0; c < 5; c++) report(case_name[c], mism[c], err);
}

/* ------------------------------------------------------------------------ */

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  char *text;
  long n;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return NULL;
  }
  text = (char *)malloc((size_t)n + 1);
  if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
    free(text);
    text = NULL;
  }
  if (text) text[n] = '\0';
  fclose(f);
  return text;
}

int main(int argc, char **argv) {
  CUdevice dev;
  CUcontext ctx;
  CUresult r;
  char *ptx;
  int bad, num, trans, which;

  if (argc != 2) {
    fprintf(stderr, "usage: %s fragments.ptx\n", argv[0]);
    return 2;
  }
  ptx = read_file(argv[1]);
  if (!ptx) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  build_mma_tables();
  bad = check_mma_tables();
  if (bad) {
    printf("FAIL mma.m16n8k16 tables disagree with the manual's figures (%d cells)\n", bad);
    return 1;
  }

  if ((r = cuInit(0)) != CUDA_SUCCESS || (r = cuDeviceGet(&dev, 0)) != CUDA_SUCCESS ||
      (r = cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS || (r = cuCtxSetCurrent(ctx)) != CUDA_SUCCESS) {
    printf("FAIL driver setup: %s\n1 failure(s)\n", err_name(r));
    return 1;
  }
  if ((r = cuModuleLoadData(&g_module, ptx)) != CUDA_SUCCESS) {
    printf("FAIL cuModuleLoadData(%s): %s\n1 failure(s)\n", argv[1], err_name(r));
    return 1;
  }

  for (which = MMA_C_ONLY; which <= MMA_FULL; which++) run_mma(0, which);
  for (which = MMA_C_ONLY; which <= MMA_FULL; which++) run_mma(1, which);
  for (trans = 0; trans <= 1; trans++)
    for (num = 1; num <= 4; num *= 2) run_ldmatrix(num, trans);
  run_cp_async();

  printf("%d failure(s)\n", g_failures);
  free(ptx);
  return g_failures ? 1 : 0;
}
