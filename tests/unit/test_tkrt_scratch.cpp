// tkrt_alloc / tkrt_free: the heap buffers of generated kernels
// (backends/x86/runtime/tkrt_scratch.c): aligned, reused when large, and
// returned by tkrt_release_memory; small ones kept per thread.
#include <doctest/doctest.h>

#include "backends/x86/runtime/tkrt.h"

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

TEST_CASE("tkrt scratch: blocks are cache-line aligned and writable, zero bytes included") {
  tkrt_release_memory();
  for (int64_t bytes : {0, 1, 63, 64, 65, 4096, 3 << 20}) {
    void *p = tkrt_alloc(bytes);
    REQUIRE(p != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
    std::memset(p, 0x5a, size_t(bytes));
    tkrt_free(p);
  }
  CHECK(tkrt_alloc(-1) == nullptr);
  CHECK(tkrt_alloc(INT64_MAX) == nullptr);
  tkrt_free(nullptr);
  tkrt_release_memory();
}

TEST_CASE("tkrt scratch: a large freed block serves the next request it fits, a small one does not linger") {
  tkrt_release_memory();
  void *big = tkrt_alloc(16 << 20);
  REQUIRE(big);
  tkrt_free(big);
  // Kept: the same block comes back for the same size, and for a smaller
  // request that leaves at most half of it unused.
  void *again = tkrt_alloc(16 << 20);
  CHECK(again == big);
  tkrt_free(again);
  void *smaller = tkrt_alloc(9 << 20);
  CHECK(smaller == big);
  tkrt_free(smaller);
  // Too large a waste (a 1 MiB request), or too small a block: a fresh one.
  void *tiny = tkrt_alloc(1 << 20);
  CHECK(tiny != big);
  void *larger = tkrt_alloc(17 << 20);
  CHECK(larger != big);
  tkrt_free(tiny);
  tkrt_free(larger);
  // After release, nothing is kept.
  tkrt_release_memory();
  void *after = tkrt_alloc(16 << 20);
  REQUIRE(after);
  tkrt_free(after);
  tkrt_release_memory();
}

TEST_CASE("tkrt scratch: concurrent callers never share a block") {
  tkrt_release_memory();
  std::vector<std::thread> threads;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &bad] {
      for (int round = 0; round < 50; ++round) {
        auto *p = static_cast<unsigned char *>(tkrt_alloc((2 + t) << 20));
        if (!p) {
          ++bad[t];
          continue;
        }
        std::memset(p, t + 1, size_t(2 + t) << 20);
        for (size_t i = 0; i < (size_t(2 + t) << 20); i += 4096) bad[t] += p[i] != t + 1;
        tkrt_free(p);
      }
    });
  for (auto &th : threads) th.join();
  for (int t = 0; t < 4; ++t) CHECK(bad[t] == 0);
  tkrt_release_memory();
}

TEST_CASE("tkrt scratch: a small freed block comes back to the same thread only") {
  tkrt_release_memory();
  void *row = tkrt_alloc(1400);
  REQUIRE(row);
  tkrt_free(row);
  // A per-iteration buffer in a parallel loop: the next request of about
  // the same size on this thread reuses the block, without malloc.
  void *again = tkrt_alloc(1368);
  CHECK(again == row);
  // Another thread never sees this thread's blocks (its own are freed when
  // it exits; the ASan build's leak check would report them otherwise).
  void *other = nullptr;
  std::thread([&other, again] {
    void *p = tkrt_alloc(1368);
    other = p;
    CHECK(p != again);
    tkrt_free(p);
  }).join();
  CHECK(other != nullptr);
  tkrt_free(again);
  // The waste bound holds for small blocks too: a 100-byte request does not
  // take the 1.4 KB block.
  void *tiny = tkrt_alloc(100);
  CHECK(tiny != row);
  tkrt_free(tiny);
  // Released: the next request gets a fresh block (or, by chance, the same
  // address from malloc, so only check that it is usable).
  tkrt_release_memory();
  auto *fresh = static_cast<unsigned char *>(tkrt_alloc(1400));
  REQUIRE(fresh);
  std::memset(fresh, 1, 1400);
  tkrt_free(fresh);
  tkrt_release_memory();
}
