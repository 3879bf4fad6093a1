// Vectors of L floats for the cost-model kernels (DenseOps, Attention), and
// the instruction set they run with, chosen once per process from the CPU:
// L = 16 on AVX-512, 8 on AVX2 with FMA, 4 on baseline x86-64 (SSE2).
//
// The project is built for baseline x86-64, so each kernel body is a
// template on L run through runSimd, which calls it from a function
// compiled for the matching target. GCC's vector extensions rather than
// loops left to the auto-vectoriser: a tile of accumulators must stay in
// registers across a loop, and the softmax's selects must not be stopped
// by -ftrapping-math. One vector type per level: a 16-float vector on AVX2
// or SSE is emulated through memory, an order of magnitude slower.
//
// Results are bit-identical for one level (fixed operation order); the
// baseline's may differ from the others' in the last bits, as AVX-512 and
// AVX2 fuse multiply-adds and SSE2 cannot.
#pragma once
#include <cstdint>
#include <cstring>

namespace tk::costmodel {

// typedef: GCC 12 drops a dependent vector_size from an int alias-declaration.
template <int L> struct SimdTypes {
  typedef float Floats __attribute__((vector_size(4 * L)));
  typedef int32_t Ints __attribute__((vector_size(4 * L)));
};
template <int L> using Floats = typename SimdTypes<L>::Floats;
template <int L> using Ints = typename SimdTypes<L>::Ints;

// By reference: a vector passed or returned by value has a different ABI
// per target (GCC's -Wpsabi).
template <int L> [[gnu::always_inline]] inline void load(Floats<L> &v, const float *p) { std::memcpy(&v, p, sizeof v); }
template <int L> [[gnu::always_inline]] inline void store(float *p, const Floats<L> &v) {
  std::memcpy(p, &v, sizeof v);
}

enum class SimdLevel { Baseline, Avx2, Avx512 };

// The best level this CPU (and OS) supports.
SimdLevel bestSimdLevel();
// The level runSimd uses: bestSimdLevel() unless lowered by setSimdLevel.
SimdLevel simdLevel();
// For tests of the lower levels' code: runs the kernels at `level`, or at
// bestSimdLevel() if that is lower.
void setSimdLevel(SimdLevel level);

// runSimd's way into code compiled for AVX-512 and for AVX2.
template <class Body> [[gnu::target("avx512f")]] void runAvx512(Body &body) { body.template operator()<16>(); }
template <class Body> [[gnu::target("avx2,fma")]] void runAvx2(Body &body) { body.template operator()<8>(); }

// Calls body.operator()<L>() for the current level's L. The body must be
// always_inline (a lambda `[&]<int L>() __attribute__((always_inline))`) so
// that it is compiled for that level's target.
template <class Body> void runSimd(Body &&body) {
  switch (simdLevel()) {
  case SimdLevel::Avx512: return runAvx512(body);
  case SimdLevel::Avx2: return runAvx2(body);
  case SimdLevel::Baseline: return body.template operator()<4>();
  }
}

} // namespace tk::costmodel
