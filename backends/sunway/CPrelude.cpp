#include "backends/sunway/CPrelude.h"

namespace tk::sunway {

std::string_view cPreludeCommon() {
  return R"C(/* Integer division and modulo round toward negative infinity, cdiv toward
   positive infinity (docs/abi.md). */
static inline int64_t tk_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t tk_floormod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline int64_t tk_cdiv(int64_t a, int64_t b) { return -tk_floordiv(-a, b); }
static inline int64_t tk_min_i(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t tk_max_i(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t tk_abs_i(int64_t a) { return a < 0 ? (int64_t)(0u - (uint64_t)a) : a; }
/* Float to integer: truncated, saturated at the type's range, NaN gives 0. */
static inline int64_t tk_f2i(double x, double lo, double hi) {
  if (x != x) return 0;
  if (x <= lo) return (int64_t)lo;
  if (x >= hi) return x >= 9223372036854775807.0 ? INT64_MAX : (int64_t)hi;
  return (int64_t)x;
}
/* bf16 is the upper half of an f32; rounding to nearest even on the bits. */
static inline float tk_bf16_to_f32(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint16_t tk_f32_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if (f != f) return (uint16_t)((u >> 16) | 0x40);
  return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
static inline float tk_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, u;
  float f;
  if (e == 0x1f) u = sign | 0x7f800000u | (m << 13);
  else if (e != 0) u = sign | ((e + 112) << 23) | (m << 13);
  else {
    f = (float)m * 5.9604644775390625e-8f; /* m * 2^-24 */
    return sign ? -f : f;
  }
  memcpy(&f, &u, 4);
  return f;
}
static inline uint16_t tk_f32_to_f16(float f) {
  uint32_t u, sign, e, m;
  memcpy(&u, &f, 4);
  sign = (u >> 16) & 0x8000;
  e = (u >> 23) & 0xff;
  m = u & 0x7fffff;
  if (e == 0xff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 | (m >> 13) : 0));
  if (e >= 143) return (uint16_t)(sign | 0x7c00); /* >= 2^16: overflow to inf */
  if (e >= 113) { /* normal f16: round the 13 dropped bits to nearest even */
    uint32_t v = ((e - 112) << 10) | (m >> 13), rest = m & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (v & 1))) ++v; /* may carry into the exponent: inf */
    return (uint16_t)(sign | v);
  }
  if (e >= 102) { /* subnormal f16 */
    uint32_t full = m | 0x800000, shift = 126 - e, v = full >> shift, rest = full & ((1u << shift) - 1),
             half = 1u << (shift - 1);
    if (rest > half || (rest == half && (v & 1))) ++v;
    return (uint16_t)(sign | v);
  }
  return (uint16_t)sign;
}
static inline float tk_round_f16(float f) { return tk_f16_to_f32(tk_f32_to_f16(f)); }
static inline float tk_round_bf16(float f) { return tk_bf16_to_f32(tk_f32_to_bf16(f)); }
)C";
}

std::string_view cPreludeDma() {
  return R"C(/* Copies the box of main-memory tensor `mem` (extents dims[0..rank), element
   size `elem`) at `origin` with extents `ext` into LDM at `ldm`, packed
   row-major (how 0: get; 1, put: the other way; 2: a get broadcast to the
   same `ldm` of the CPEs of the rows set in `mask`, BCAST_MODE, issued by
   one CPE: 0xff for all 64, 1 << _ROW for the issuer's row). The
   innermost dimensions the box spans whole merge with the first one it
   does not into one contiguous block;
   the dimension above that becomes the block count of one strided
   transfer (bsize = the block, stride = the gap to the next block); the
   dimensions above loop, one transfer each. With `async` null it returns
   when all are done; otherwise the transfers count on *async and it
   returns how many it issued, for the caller to wait for later. Built with
   TK_DMA_NO_MERGE (the ablation of tk_sunway_bench), every row of the
   innermost dimension is a transfer of its own. */
static inline int tk_dma_box(int how, char *mem, const int64_t *dims, const int64_t *origin, const int64_t *ext,
                             int rank, int64_t elem, char *ldm, int mask, volatile int *async) {
  volatile int own = 0;
  volatile int *reply = async ? async : &own;
  int issued = 0, k, d, e;
  int64_t block = elem, rows = 1, gap = 0, outer = 1, o;
  for (d = 0; d < rank; ++d)
    if (ext[d] <= 0) return 0;
#ifdef TK_DMA_NO_MERGE
  k = rank; /* no strided dimension: dimensions [0, rank - 1) loop */
  if (rank > 0) block *= ext[rank - 1];
#else
  for (k = rank - 1; k >= 0; --k) {
    block *= ext[k];
    if (k == 0 || ext[k] != dims[k]) break;
  }
#endif
  if (k >= 1 && k < rank) { /* dimension k - 1 is strided */
    int64_t pitch = elem;
    for (d = k; d < rank; ++d) pitch *= dims[d];
    rows = ext[k - 1];
    gap = pitch - block;
  }
  for (d = 0; d + 1 < k; ++d) outer *= ext[d];
  for (o = 0; o < outer; ++o) {
    int64_t off = 0, len = block * rows;
    for (d = 0; d < rank; ++d) {
      int64_t idx = origin[d];
      if (d + 1 < k) { /* coordinate d of outer row o, row-major over dims [0, k - 1) */
        int64_t below = 1;
        for (e = d + 1; e + 1 < k; ++e) below *= ext[e];
        idx += (o / below) % ext[d];
      }
      off = off * dims[d] + idx;
    }
    if (how == 1) athread_put(PE_MODE, ldm + o * len, mem + off * elem, len, (void *)reply, gap, block);
    else if (how == 2) athread_get(BCAST_MODE, mem + off * elem, ldm + o * len, len, (void *)reply, mask, gap, block);
    else athread_get(PE_MODE, mem + off * elem, ldm + o * len, len, (void *)reply, 0, gap, block);
    ++issued;
  }
  if (!async)
    while (own != issued) {
      TK_DMA_SPIN();
    }
  return issued;
}
)C";
}

} // namespace tk::sunway
