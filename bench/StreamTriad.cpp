#include "bench/StreamTriad.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace tk::bench {

double streamTriadBytesPerSecond(int threads, int runs) {
  // 3 x 128 MiB: well beyond any L3 this runs on.
  const std::ptrdiff_t n = std::ptrdiff_t(32) << 20;
  std::vector<float> a(n), b(n), c(n);
  // First touch from the threads that later stream the data.
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    a[i] = 0;
    b[i] = 1;
    c[i] = 2;
  }
  double best = 0;
  for (int r = 0; r < std::max(1, runs); ++r) {
    auto t0 = std::chrono::steady_clock::now();
    float *pa = a.data();
    const float *pb = b.data(), *pc = c.data();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) pa[i] = pb[i] + 3.0f * pc[i];
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 3.0 * sizeof(float) * n / s);
  }
  return best;
}

} // namespace tk::bench
