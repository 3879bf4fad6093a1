// Unit tests for the CPU runtime (backends/x86/runtime, libtkrt.a).
#include <doctest/doctest.h>

#include "backends/x86/runtime/tkrt.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

namespace {

struct Coverage {
  int64_t n;
  std::unique_ptr<std::atomic<int>[]> hits;
  std::atomic<int64_t> calls{0};
  std::atomic<bool> bad_range{false};
  explicit Coverage(int64_t n_) : n(n_), hits(new std::atomic<int>[n_ > 0 ? n_ : 1]) {
    for (int64_t i = 0; i < (n > 0 ? n : 1); ++i)
      hits[i].store(0);
  }
};

void coverBody(void *ctx, int64_t begin, int64_t end) {
  auto *c = static_cast<Coverage *>(ctx);
  c->calls.fetch_add(1);
  if (begin < 0 || end > c->n || begin >= end) {
    c->bad_range = true;
    return;
  }
  for (int64_t i = begin; i < end; ++i)
    c->hits[i].fetch_add(1, std::memory_order_relaxed);
}

void checkCoverage(int64_t n) {
  Coverage c(n);
  REQUIRE(tkrt_parallel_for(n, coverBody, &c) == 0);
  CHECK_FALSE(c.bad_range.load());
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i)
    wrong += c.hits[i].load() != 1;
  CHECK(wrong == 0);
  if (n <= 0)
    CHECK(c.calls.load() == 0);
  else
    CHECK(c.calls.load() >= 1);
}

} // namespace

TEST_SUITE("tkrt") {

TEST_CASE("tkrt: num_threads honours TK_NUM_THREADS") {
  int t = tkrt_num_threads();
  CHECK(t >= 1);
  CHECK(tkrt_num_threads() == t); // stable
  if (const char *env = std::getenv("TK_NUM_THREADS")) {
    int want = std::atoi(env);
    if (want > 0)
      CHECK(t == want);
  } else {
    unsigned hw = std::thread::hardware_concurrency();
    if (hw > 0)
      CHECK(t <= (int)hw);
  }
}

TEST_CASE("tkrt: every index covered exactly once") {
  for (int64_t n : {int64_t(0), int64_t(1), int64_t(2), int64_t(7), int64_t(1000003)}) {
    CAPTURE(n);
    checkCoverage(n);
  }
}

TEST_CASE("tkrt: negative n and null body") {
  Coverage c(1);
  CHECK(tkrt_parallel_for(-5, coverBody, &c) == 0);
  CHECK(c.calls.load() == 0);
  CHECK(tkrt_parallel_for(10, nullptr, nullptr) != 0);
}

TEST_CASE("tkrt: chunks are contiguous and disjoint") {
  struct Ranges {
    std::atomic<int64_t> sum{0};
    std::atomic<int64_t> count{0};
  } r;
  auto body = [](void *ctx, int64_t b, int64_t e) {
    auto *rr = static_cast<Ranges *>(ctx);
    rr->sum.fetch_add(e - b);
    rr->count.fetch_add(1);
  };
  REQUIRE(tkrt_parallel_for(12345, body, &r) == 0);
  CHECK(r.sum.load() == 12345);
  CHECK(r.count.load() <= 12345);
}

TEST_CASE("tkrt: guided chunks shrink to single indices at the end") {
  // Claims are serialised, so in order of their first index every chunk
  // takes max(min, left / (2 T)) of the `left` indices still unclaimed,
  // min = max(1, n / (16 T)): a job of 18 heavy tasks (a blocked matmul's)
  // ends with chunks of one, whichever thread claims them.
  struct Chunks {
    std::mutex m;
    std::vector<std::pair<int64_t, int64_t>> ranges;
  };
  auto body = [](void *ctx, int64_t b, int64_t e) {
    auto *c = static_cast<Chunks *>(ctx);
    std::lock_guard<std::mutex> lock(c->m);
    c->ranges.emplace_back(b, e);
  };
  const int64_t T = tkrt_num_threads();
  for (int64_t n : {int64_t(2), int64_t(18), int64_t(131), int64_t(4096), int64_t(100003)}) {
    CAPTURE(n);
    Chunks c;
    REQUIRE(tkrt_parallel_for(n, body, &c) == 0);
    std::sort(c.ranges.begin(), c.ranges.end());
    if (T == 1) {
      CHECK(c.ranges == std::vector<std::pair<int64_t, int64_t>>{{0, n}});
      continue;
    }
    const int64_t min = std::max<int64_t>(1, n / (16 * T));
    int64_t next = 0;
    for (auto [b, e] : c.ranges) {
      CHECK(b == next);
      CHECK(e - b == std::min(n - b, std::max(min, (n - b) / (2 * T))));
      next = e;
    }
    CHECK(next == n);
    if (n == 18) CHECK(c.ranges.back().second - c.ranges.back().first == 1);
    CHECK((int64_t)c.ranges.size() <= 2 * T * 16 + 64);
  }
}

TEST_CASE("tkrt: nested calls run serially without deadlock") {
  struct Outer {
    int64_t inner_n;
    std::vector<Coverage *> inner;
  };
  const int64_t outer_n = 16, inner_n = 1001;
  std::vector<std::unique_ptr<Coverage>> inners;
  Outer o{inner_n, {}};
  for (int64_t i = 0; i < outer_n; ++i) {
    inners.emplace_back(new Coverage(inner_n));
    o.inner.push_back(inners.back().get());
  }
  auto outerBody = [](void *ctx, int64_t b, int64_t e) {
    auto *oo = static_cast<Outer *>(ctx);
    for (int64_t i = b; i < e; ++i)
      tkrt_parallel_for(oo->inner_n, coverBody, oo->inner[i]);
  };
  REQUIRE(tkrt_parallel_for(outer_n, outerBody, &o) == 0);
  for (auto &c : inners) {
    CHECK_FALSE(c->bad_range.load());
    int64_t wrong = 0;
    for (int64_t i = 0; i < inner_n; ++i)
      wrong += c->hits[i].load() != 1;
    CHECK(wrong == 0);
  }
}

TEST_CASE("tkrt: many calls in a row") {
  std::atomic<int64_t> total{0};
  auto body = [](void *ctx, int64_t b, int64_t e) {
    static_cast<std::atomic<int64_t> *>(ctx)->fetch_add(e - b);
  };
  int64_t expect = 0;
  for (int i = 0; i < 5000; ++i) {
    int64_t n = (i * 37) % 101;
    expect += n;
    REQUIRE(tkrt_parallel_for(n, body, &total) == 0);
  }
  CHECK(total.load() == expect);
}

TEST_CASE("tkrt: concurrent callers from several application threads") {
  std::vector<std::thread> ts;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&failures] {
      for (int it = 0; it < 200; ++it) {
        Coverage c(513);
        tkrt_parallel_for(513, coverBody, &c);
        for (int64_t i = 0; i < 513; ++i)
          if (c.hits[i].load() != 1)
            failures.fetch_add(1);
      }
    });
  for (auto &th : ts)
    th.join();
  CHECK(failures.load() == 0);
}

TEST_CASE("tkrt: workers take jobs after spinning and after sleeping") {
  // Workers poll for the next job for TKRT_SPIN_NS (0.1 ms), then sleep on
  // a condition variable: jobs published right away and 2 ms later must
  // both run, and with several threads a worker takes some of the chunks
  // (each chunk sleeps, so the caller cannot finish them all alone).
  struct Seen {
    std::mutex m;
    std::set<std::thread::id> threads;
    std::atomic<int64_t> items{0};
  };
  auto body = [](void *ctx, int64_t b, int64_t e) {
    auto *s = static_cast<Seen *>(ctx);
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    s->items.fetch_add(e - b);
    std::lock_guard<std::mutex> lock(s->m);
    s->threads.insert(std::this_thread::get_id());
  };
  for (int pause_us : {0, 2000}) {
    Seen s;
    for (int i = 0; i < 10; ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(pause_us));
      REQUIRE(tkrt_parallel_for(64, body, &s) == 0);
    }
    CHECK(s.items.load() == 640);
    if (tkrt_num_threads() > 1)
      CHECK(s.threads.size() > 1);
  }
}

} // TEST_SUITE
