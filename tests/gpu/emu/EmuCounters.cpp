// EmuCounters: the "counters" suite (see EmuChecks.cpp): the executor's
// tk_cuda_emu_last_stats() after a launch: instruction counts, branches and
// divergent branches, theoretical and achieved occupancy.
#include "EmuTestSupport.h"

#include <cstdint>
#include <string>
#include <vector>

using namespace emu_test;

// ===========================================================================
// Counters of tk_cuda_emu_last_stats().
// ===========================================================================
TEST_SUITE("counters") {

TEST_CASE("divergent_branches counts a divergent branch once per warp, not uniform ones") {
  if (!emulated()) return;
  const std::string text = ptx(R"(
.visible .entry branches(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %laneid;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, 0;
  setp.eq.u32 %p1, %r3, 0;
  @%p1 bra TAKEN;
  add.u32 %r4, %r4, 1000;
TAKEN:
  setp.ne.u32 %p2, %r3, 0;
  @%p2 bra NOT_TAKEN;
  add.u32 %r4, %r4, 1;
NOT_TAKEN:
  setp.lt.u32 %p3, %r2, 16;
  @%p3 bra DIVERGENT;
  add.u32 %r4, %r4, 10;
DIVERGENT:
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)");
  Module m(text);
  Buffer out(64 * 4);
  Result r = launch(m, "branches", {1}, {64}, {&out.ptr});
  REQUIRE_MESSAGE(r.rc == CUDA_SUCCESS, r.error);
  CHECK(r.stats.branches == 6);           // 3 conditional branches x 2 warps
  CHECK(r.stats.divergent_branches == 2); // the third, in each warp
  std::vector<uint32_t> v = out.get<uint32_t>();
  for (uint32_t t = 0; t < 64; ++t) CHECK(v[t] == (t % 32 < 16 ? 1u : 11u));
}

TEST_CASE("thread_instructions of a straight-line kernel; occupancy of a tiny grid") {
  if (!emulated()) return;
  const std::string text = ptx(R"(
.visible .entry straight()
{
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 1;
  ret;
}
)");
  Module m(text);
  Result r = launch(m, "straight", {1}, {64});
  REQUIRE_MESSAGE(r.rc == CUDA_SUCCESS, r.error);
  CHECK(std::string(r.stats.kernel) == "straight");
  CHECK(r.stats.thread_instructions == 3 * 64);
  CHECK(r.stats.warp_instructions == 3 * 2);
  CHECK(r.stats.by_kind[TK_EMU_INT] == 2 * 64);
  CHECK(r.stats.by_kind[TK_EMU_CONTROL] == 64);
  CHECK(r.stats.branches == 0);

  SUBCASE("occupancy") {
    Result one = launch(m, "straight", {1}, {128});
    REQUIRE(one.rc == CUDA_SUCCESS);
    CHECK(one.stats.theoretical_occupancy > 0.0);
    CHECK(one.stats.theoretical_occupancy <= 1.0);
    CHECK(one.stats.achieved_occupancy > 0.0);
    CHECK(one.stats.achieved_occupancy < one.stats.theoretical_occupancy);
    // A grid that fills every SM to its resident-block limit achieves the
    // theoretical occupancy.
    int sms = 0;
    REQUIRE(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0) == CUDA_SUCCESS);
    unsigned full = static_cast<unsigned>(sms) * one.stats.blocks_per_sm;
    Result many = launch(m, "straight", {full}, {128});
    REQUIRE(many.rc == CUDA_SUCCESS);
    CHECK(many.stats.achieved_occupancy == doctest::Approx(many.stats.theoretical_occupancy));
    CHECK(many.stats.theoretical_occupancy == doctest::Approx(one.stats.theoretical_occupancy));
  }
}

} // TEST_SUITE counters
