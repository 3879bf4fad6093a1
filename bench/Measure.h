// Measure: the timing loop and buffers shared by tk_bench and tk_ops_bench —
// a median-of-samples timer and cache-line-aligned random f32 buffers.
#pragma once
#include "bench/Baselines.h"

#include <cstddef>
#include <new>
#include <random>
#include <vector>

namespace tk::bench {

// Median seconds per call of `run`: a warm-up (>= 3 calls and >= 0.1 s:
// JIT, thread pools, caches), then up to `runs` samples, stopping once
// `maxSeconds` were spent, each repeating the call until it spans >= 20 ms
// (so fast kernels are not measured at the timer's resolution). When the
// warm-up alone exceeds `maxSeconds`, its mean time per call is the result.
double sampleSeconds(const Run &run, int runs, double maxSeconds);

// Buffers start on a cache line, as oneDNN and the BLAS documentation
// advise and as tkc's own scratch buffers do. A plain std::vector's data is
// 16 bytes past one: every row of a 4096-wide matrix then starts
// mid-line, each 64-byte vector store writes two lines, and the stores can
// no longer replace whole lines without reading them (4096 x 64 x 4096:
// 224 vs 182 GFLOP/s for tkc, C driver, 2 threads).
template <typename T> struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U> CacheLineAllocator(const CacheLineAllocator<U> &) {}
  T *allocate(size_t n) { return static_cast<T *>(::operator new (n * sizeof(T), std::align_val_t{64})); }
  void deallocate(T *p, size_t) { ::operator delete (p, std::align_val_t{64}); }
  bool operator==(const CacheLineAllocator &) const { return true; }
};
using Buffer = std::vector<float, CacheLineAllocator<float>>;

// `n` values uniform in [-1, 1].
Buffer randomBuffer(size_t n, std::mt19937 &rng);

// max |a - b| / max |b| over the first min(a, b) elements: a sanity check
// that two kernels computing the same thing agree (0 when b is all zero
// and a equals it).
double maxRelDiff(const Buffer &a, const Buffer &b);

} // namespace tk::bench
