// fragments.cu: warp-level matrix instructions whose register layouts the
// host program (fragments_run.c) checks against tables it writes from the
// PTX ISA manual. Compiled at build time with `nvcc -ptx -arch=sm_80 -O3`;
// the PTX text is loaded by fragments_run through the CUDA driver API.
//
// The kernels know no layout: they move raw 32-bit registers between global
// memory and the instructions, in per-lane register order, so every mapping
// between matrix elements and (lane, register, half) lives on the host.
//
// Every kernel is launched as one block of one warp (32 threads).

#include <stdint.h>

// ---------------------------------------------------------------------------
// mma (PTX ISA, "Warp Level Matrix Multiply-Accumulate Instructions: mma",
// and "Matrix Fragments for mma.m16n8k16 with floating point type").
//
// A_regs[lane*4 + r]: lane's A register r (two packed f16/bf16 elements);
// B_regs[lane*2 + r]: lane's B register r; C[lane*4 + r]: lane's C register r
// (f32); D[lane*4 + r] receives lane's D register r.
// ---------------------------------------------------------------------------

#define TK_MMA_DUMP(NAME, ABTYPE)                                                              \
  extern "C" __global__ void NAME(const uint32_t *__restrict__ A_regs,                        \
                                  const uint32_t *__restrict__ B_regs,                        \
                                  const float *__restrict__ C, float *__restrict__ D) {       \
    const unsigned lane = threadIdx.x & 31u;                                                   \
    const uint32_t a0 = A_regs[lane * 4 + 0], a1 = A_regs[lane * 4 + 1];                       \
    const uint32_t a2 = A_regs[lane * 4 + 2], a3 = A_regs[lane * 4 + 3];                       \
    const uint32_t b0 = B_regs[lane * 2 + 0], b1 = B_regs[lane * 2 + 1];                       \
    const float c0 = C[lane * 4 + 0], c1 = C[lane * 4 + 1];                                    \
    const float c2 = C[lane * 4 + 2], c3 = C[lane * 4 + 3];                                    \
    float d0, d1, d2, d3;                                                                      \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." ABTYPE "." ABTYPE ".f32 "           \
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"         \
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)                                      \
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1),     \
                   "f"(c2), "f"(c3));                                                          \
    D[lane * 4 + 0] = d0;                                                                      \
    D[lane * 4 + 1] = d1;                                                                      \
    D[lane * 4 + 2] = d2;                                                                      \
    D[lane * 4 + 3] = d3;                                                                      \
  }

TK_MMA_DUMP(mma_f16_dump, "f16")
TK_MMA_DUMP(mma_bf16_dump, "bf16")

// ---------------------------------------------------------------------------
// ldmatrix (PTX ISA, "Warp-level matrix load instruction: ldmatrix").
//
// The warp fills a shared tile of 16-bit values with their own index
// (tile[i] = i, TK_LDM_ROWS rows of TK_LDM_STRIDE elements), then lane L
// passes &tile[offs[L]] as its row address. offs comes from the host, which
// follows the manual's rule (threads 0-7 address the rows of matrix 0, 8-15
// of matrix 1, ...) and gives the lanes whose address .x1/.x2 ignore a
// different, valid row. out[lane*4 + r] receives lane's destination register
// r (r < number of matrices).
// ---------------------------------------------------------------------------

#define TK_LDM_ROWS 64
#define TK_LDM_STRIDE 40 // elements per row: 80 bytes, every row 16-byte aligned

template <int N, bool TRANS>
__device__ __forceinline__ void ldmatrix_dump(const uint32_t *__restrict__ offs, uint32_t *__restrict__ out) {
  __shared__ __align__(16) uint16_t tile[TK_LDM_ROWS * TK_LDM_STRIDE];
  const unsigned lane = threadIdx.x & 31u;
  for (unsigned i = lane; i < TK_LDM_ROWS * TK_LDM_STRIDE; i += 32)
    tile[i] = (uint16_t)i;
  __syncthreads();
  const uint32_t addr = (uint32_t)__cvta_generic_to_shared(&tile[offs[lane]]);
  uint32_t r0 = 0, r1 = 0, r2 = 0, r3 = 0;
  if (N == 1) {
    if (TRANS)
      asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(addr));
    else
      asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(addr));
  } else if (N == 2) {
    if (TRANS)
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                   : "=r"(r0), "=r"(r1) : "r"(addr));
    else
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                   : "=r"(r0), "=r"(r1) : "r"(addr));
  } else {
    if (TRANS)
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
    else
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
  }
  out[lane * 4 + 0] = r0;
  if (N >= 2) out[lane * 4 + 1] = r1;
  if (N >= 4) {
    out[lane * 4 + 2] = r2;
    out[lane * 4 + 3] = r3;
  }
}

#define TK_LDM_KERNEL(NAME, N, TRANS)                                                          \
  extern "C" __global__ void NAME(const uint32_t *__restrict__ offs, uint32_t *__restrict__ out) { \
    ldmatrix_dump<N, TRANS>(offs, out);                                                        \
  }

TK_LDM_KERNEL(ldmatrix_x1, 1, false)
TK_LDM_KERNEL(ldmatrix_x2, 2, false)
TK_LDM_KERNEL(ldmatrix_x4, 4, false)
TK_LDM_KERNEL(ldmatrix_x1_trans, 1, true)
TK_LDM_KERNEL(ldmatrix_x2_trans, 2, true)
TK_LDM_KERNEL(ldmatrix_x4_trans, 4, true)

// ---------------------------------------------------------------------------
// cp.async (PTX ISA, "Data Movement and Conversion Instructions: cp.async",
// "cp.async.commit_group", "cp.async.wait_group / cp.async.wait_all").
//
// A 1024-byte shared buffer is filled with 0xAB. Group 1: lane L copies into
// the 16-byte slot buf[L*16 ..]:
//   lanes  0- 7: cp.async.cg.shared.global, cp-size 16, src-size params[32+L]
//   lanes  8-15: cp.async.ca.shared.global, cp-size  4, src-size params[32+L]
//   lanes 16-23: cp.async.ca.shared.global, cp-size  8, src-size params[32+L]
//   lanes 24-31: cp.async.ca.shared.global, cp-size 16, src-size params[32+L]
// from src + params[L]. Group 2: every lane copies 16 bytes with
// cp.async.cg (no src-size operand) from src + params[64+L] into
// buf[512 + L*16 ..]. Then wait_group 0, a barrier, and the whole buffer goes
// to out. The host expects: copied bytes, zeros up to cp-size, 0xAB after.
// ---------------------------------------------------------------------------

extern "C" __global__ void cp_async_zero_fill(const uint8_t *__restrict__ src, const uint32_t *__restrict__ params,
                                              uint8_t *__restrict__ out) {
  __shared__ __align__(16) uint8_t buf[1024];
  const unsigned lane = threadIdx.x & 31u;
  for (unsigned i = lane; i < 1024; i += 32)
    buf[i] = 0xAB;
  __syncthreads();

  const uint32_t dst1 = (uint32_t)__cvta_generic_to_shared(&buf[lane * 16]);
  const uint32_t dst2 = (uint32_t)__cvta_generic_to_shared(&buf[512 + lane * 16]);
  const uint64_t src1 = (uint64_t)__cvta_generic_to_global(src + params[lane]);
  const uint64_t src2 = (uint64_t)__cvta_generic_to_global(src + params[64 + lane]);
  const uint32_t src_size = params[32 + lane];

  if (lane < 8)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst1), "l"(src1), "r"(src_size) : "memory");
  else if (lane < 16)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst1), "l"(src1), "r"(src_size) : "memory");
  else if (lane < 24)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(dst1), "l"(src1), "r"(src_size) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(dst1), "l"(src1), "r"(src_size) : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");

  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst2), "l"(src2) : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");

  asm volatile("cp.async.wait_group 0;" ::: "memory");
  __syncthreads();

  for (unsigned i = lane; i < 1024; i += 32)
    out[i] = buf[i];
}
