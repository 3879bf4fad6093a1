#include "bench/Measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace tk::bench {

double sampleSeconds(const Run &run, int runs, double maxSeconds) {
  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point a) { return std::chrono::duration<double>(clock::now() - a).count(); };
  auto t0 = clock::now();
  int warmCalls = 0;
  while (warmCalls < 3 || since(t0) < 0.1) {
    run();
    ++warmCalls;
    if (since(t0) > maxSeconds)
      return since(t0) / warmCalls;
  }
  int reps = std::max(1, static_cast<int>(0.02 / (since(t0) / warmCalls)));
  std::vector<double> times;
  auto start = clock::now();
  for (int i = 0; i < runs && (times.empty() || since(start) < maxSeconds); ++i) {
    auto a = clock::now();
    for (int r = 0; r < reps; ++r)
      run();
    times.push_back(since(a) / reps);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

Buffer randomBuffer(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> d(-1, 1);
  Buffer v(n);
  for (float &x : v)
    x = d(rng);
  return v;
}

double maxRelDiff(const Buffer &a, const Buffer &b) {
  double diff = 0, mag = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(a[i]) - b[i]));
    mag = std::max(mag, std::fabs(static_cast<double>(b[i])));
  }
  return mag > 0 ? diff / mag : diff;
}

} // namespace tk::bench
