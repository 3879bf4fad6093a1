// EmuShuffles: the "semantics" suite's warp-collective cases (see
// EmuChecks.cpp): shfl.sync up/down/bfly/idx against the PTX ISA's
// formulas (clamp, segment mask, bval), shfl.sync after reconvergence and
// with exited lanes, and vote.sync ballot/any/all/uni.
#include "EmuTestSupport.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using namespace emu_test;

// ===========================================================================
// Semantics (PTX ISA 8.x), checked against the manual's definitions.
// ===========================================================================
TEST_SUITE("semantics") {

namespace {
enum class ShflMode { Up, Down, Bfly, Idx };

// shfl.sync, PTX ISA "Data Movement and Conversion Instructions: shfl.sync":
//   lane[4:0] = laneid; bval[4:0] = b[4:0]; cval[4:0] = c[4:0]; segmask[4:0] = c[12:8];
//   maxLane = (lane & segmask) | (cval & ~segmask); minLane = lane & segmask;
//   .up:   j = lane - bval; pval = (j >= maxLane);
//   .down: j = lane + bval; pval = (j <= maxLane);
//   .bfly: j = lane ^ bval; pval = (j <= maxLane);
//   .idx:  j = minLane | (bval[4:0] & ~segmask[4:0]); pval = (j <= maxLane);
//   if (!pval) j = lane;  d = SourceA[j];  p = pval;
std::pair<uint32_t, bool> shflRef(ShflMode mode, int lane, uint32_t b, uint32_t c, const uint32_t *a) {
  int bval = static_cast<int>(b & 0x1f), cval = static_cast<int>(c & 0x1f), seg = static_cast<int>((c >> 8) & 0x1f);
  int maxLane = (lane & seg) | (cval & ~seg), minLane = lane & seg, j = lane;
  bool pval = false;
  switch (mode) {
  case ShflMode::Up: j = lane - bval, pval = j >= maxLane; break;
  case ShflMode::Down: j = lane + bval, pval = j <= maxLane; break;
  case ShflMode::Bfly: j = lane ^ bval, pval = j <= maxLane; break;
  case ShflMode::Idx: j = minLane | (bval & ~seg), pval = j <= maxLane; break;
  }
  if (!pval) j = lane;
  return {a[j], pval};
}

const char *const kShflKernel = R"(
.visible .entry shfl(.param .u64 out, .param .u32 b, .param .u32 c)
{
  .reg .pred %p<8>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [b];
  ld.param.u32 %r2, [c];
  mov.u32 %r3, %laneid;
  mad.lo.u32 %r4, %r3, 10, 7;
  shfl.sync.up.b32 %r10|%p1, %r4, %r1, %r2, 0xffffffff;
  shfl.sync.down.b32 %r11|%p2, %r4, %r1, %r2, 0xffffffff;
  shfl.sync.bfly.b32 %r12|%p3, %r4, %r1, %r2, 0xffffffff;
  shfl.sync.idx.b32 %r13|%p4, %r4, %r1, %r2, 0xffffffff;
  selp.u32 %r14, 1, 0, %p1;
  selp.u32 %r15, 1, 0, %p2;
  selp.u32 %r16, 1, 0, %p3;
  selp.u32 %r17, 1, 0, %p4;
  mul.wide.u32 %rd2, %r3, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
  st.global.u32 [%rd3+128], %r11;
  st.global.u32 [%rd3+256], %r12;
  st.global.u32 [%rd3+384], %r13;
  st.global.u32 [%rd3+512], %r14;
  st.global.u32 [%rd3+640], %r15;
  st.global.u32 [%rd3+768], %r16;
  st.global.u32 [%rd3+896], %r17;
  ret;
}
)";

void checkShfl(uint32_t b, uint32_t c) {
  Module m(ptx(kShflKernel));
  Buffer out(8 * 32 * 4);
  Result r = launch(m, "shfl", {1}, {32}, {&out.ptr, &b, &c});
  REQUIRE_MESSAGE(r.rc == CUDA_SUCCESS, r.error);
  std::vector<uint32_t> v = out.get<uint32_t>();
  uint32_t a[32];
  for (int l = 0; l < 32; ++l) a[l] = static_cast<uint32_t>(l) * 10 + 7;
  const char *names[] = {"up", "down", "bfly", "idx"};
  for (int mode = 0; mode < 4; ++mode)
    for (int l = 0; l < 32; ++l) {
      auto [value, pred] = shflRef(static_cast<ShflMode>(mode), l, b, c, a);
      INFO("shfl.sync." << std::string(names[mode]) << " b=" << b << " c=" << hex(c) << " lane " << l);
      CHECK(v[static_cast<size_t>(mode * 32 + l)] == value);
      CHECK(v[static_cast<size_t>(128 + mode * 32 + l)] == static_cast<uint32_t>(pred));
    }
}
} // namespace

TEST_CASE("shfl.sync up/down/bfly/idx with clamp and segment values (c operand)") {
  // {b, c}: c = clamp | segmask << 8; CUDA's __shfl_*_sync(width w) passes
  // segmask = 32 - w, clamp 0 for up and 0x1f for the others.
  const std::pair<uint32_t, uint32_t> cases[] = {
      {1, 0x1f},                   // full warp
      {2, 0x0},                    // full warp, up's clamp
      {3, 0x1f | ((32 - 8) << 8)}, // width 8
      {3, (32 - 8) << 8},          // width 8, up's clamp
      {5, 0x1f | ((32 - 16) << 8)},// width 16
      {13, 0x1f | ((32 - 4) << 8)},// width 4, b beyond the segment
      {4, 20},                     // clamp at lane 20, no segments
      {0, 0x1f},
      {31, 0x1f},
  };
  for (auto [b, c] : cases) {
    CAPTURE(b);
    CAPTURE(c);
    checkShfl(b, c);
  }
}

TEST_CASE("shfl.sync uses only b[4:0] (bval), so b = 33 moves by 1") {
  // PTX ISA: "bval[4:0] = b[4:0]" and "an out of range value of b may still
  // result in a valid computed source lane index j".
  checkShfl(33, 0x1f);
  checkShfl(32 + 3, 0x1f | ((32 - 8) << 8));
}

TEST_CASE("shfl.sync after a divergent branch that reconverges: correct warp sums") {
  // Lanes 0..15 add 1, lanes 16..31 double, then a butterfly sum over the
  // full warp (mask 0xffffffff): every lane must have arrived.
  const std::string text = ptx(R"(
.visible .entry reconv(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %laneid;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u32 %r3, [%rd4];
  setp.lt.u32 %p1, %r2, 16;
  @%p1 bra LOW;
  shl.b32 %r3, %r3, 1;
  bra JOIN;
LOW:
  add.u32 %r3, %r3, 1;
JOIN:
  shfl.sync.bfly.b32 %r4, %r3, 16, 0x1f, 0xffffffff;
  add.u32 %r3, %r3, %r4;
  shfl.sync.bfly.b32 %r4, %r3, 8, 0x1f, 0xffffffff;
  add.u32 %r3, %r3, %r4;
  shfl.sync.bfly.b32 %r4, %r3, 4, 0x1f, 0xffffffff;
  add.u32 %r3, %r3, %r4;
  shfl.sync.bfly.b32 %r4, %r3, 2, 0x1f, 0xffffffff;
  add.u32 %r3, %r3, %r4;
  shfl.sync.bfly.b32 %r4, %r3, 1, 0x1f, 0xffffffff;
  add.u32 %r3, %r3, %r4;
  add.u64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r3;
  ret;
}
)");
  Module m(text);
  std::vector<uint32_t> host(64);
  for (uint32_t i = 0; i < 64; ++i) host[i] = i * 3 + 1;
  Buffer in(host), out(64 * 4);
  Result r = launch(m, "reconv", {1}, {64}, {&in.ptr, &out.ptr});
  REQUIRE_MESSAGE(r.rc == CUDA_SUCCESS, r.error);
  std::vector<uint32_t> v = out.get<uint32_t>();
  for (uint32_t w = 0; w < 2; ++w) {
    uint32_t sum = 0;
    for (uint32_t l = 0; l < 32; ++l) sum += l < 16 ? host[w * 32 + l] + 1 : host[w * 32 + l] * 2;
    for (uint32_t l = 0; l < 32; ++l) CHECK(v[w * 32 + l] == sum);
  }
  if (emulated()) CHECK(r.stats.divergent_branches == 2);
}

TEST_CASE("shfl.sync may name lanes that have exited") {
  // PTX ISA, shfl.sync: the executing thread waits "until all non-exited
  // threads corresponding to membermask have executed shfl.sync"; CUDA's
  // __shfl_*_sync: "all non-exited threads named in mask must execute the
  // same intrinsic". Lanes 16..31 return first; lanes 0..15 exchange among
  // themselves (lane ^ 1), which is well defined.
  const std::string text = ptx(R"(
.visible .entry exited(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %laneid;
  setp.ge.u32 %p1, %r2, 16;
  @%p1 ret;
  shfl.sync.bfly.b32 %r3, %r1, 1, 0x1f, 0xffffffff;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)");
  Module m(text);
  Buffer out(32 * 4);
  Result r = launch(m, "exited", {1}, {32}, {&out.ptr});
  CHECK_MESSAGE(r.rc == CUDA_SUCCESS, r.error);
  std::vector<uint32_t> v = out.get<uint32_t>();
  for (uint32_t l = 0; l < 16; ++l) CHECK(v[l] == (l ^ 1u));
}

TEST_CASE("vote.sync ballot/any/all/uni, negated predicate, partial mask") {
  const std::string text = ptx(R"(
.visible .entry votes(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %laneid;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u32 %r3, [%rd4];
  setp.ne.u32 %p1, %r3, 0;
  vote.sync.ballot.b32 %r4, %p1, 0xffffffff;
  vote.sync.ballot.b32 %r5, !%p1, 0xffffffff;
  vote.sync.any.pred %p2, %p1, 0xffffffff;
  vote.sync.all.pred %p3, %p1, 0xffffffff;
  vote.sync.uni.pred %p4, %p1, 0xffffffff;
  selp.u32 %r6, 1, 0, %p2;
  selp.u32 %r7, 1, 0, %p3;
  selp.u32 %r8, 1, 0, %p4;
  mov.u32 %r9, 0xdeadbeef;
  setp.lt.u32 %p5, %r2, 16;
  @!%p5 bra SKIP;
  vote.sync.ballot.b32 %r9, %p1, 0x0000ffff;
SKIP:
  mul.wide.u32 %rd5, %r1, 24;
  add.u64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r4;
  st.global.u32 [%rd6+4], %r5;
  st.global.u32 [%rd6+8], %r6;
  st.global.u32 [%rd6+12], %r7;
  st.global.u32 [%rd6+16], %r8;
  st.global.u32 [%rd6+20], %r9;
  ret;
}
)");
  Module m(text);
  // Warp 0: every third lane true; warp 1: all true; warp 2: all false.
  std::vector<uint32_t> host(96);
  for (uint32_t i = 0; i < 96; ++i) host[i] = i < 32 ? (i % 3 == 0 ? 5 : 0) : i < 64 ? 1 : 0;
  Buffer in(host), out(96 * 24);
  Result r = launch(m, "votes", {1}, {96}, {&in.ptr, &out.ptr});
  REQUIRE_MESSAGE(r.rc == CUDA_SUCCESS, r.error);
  std::vector<uint32_t> v = out.get<uint32_t>();
  for (uint32_t w = 0; w < 3; ++w) {
    uint32_t ballot = 0;
    for (uint32_t l = 0; l < 32; ++l) ballot |= (host[w * 32 + l] != 0 ? 1u : 0u) << l;
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t *o = &v[(w * 32 + l) * 6];
      CAPTURE(w);
      CAPTURE(l);
      CHECK(o[0] == ballot);
      CHECK(o[1] == ~ballot);
      CHECK(o[2] == (ballot != 0 ? 1u : 0u));
      CHECK(o[3] == (ballot == 0xffffffffu ? 1u : 0u));
      CHECK(o[4] == (ballot == 0 || ballot == 0xffffffffu ? 1u : 0u));
      CHECK(o[5] == (l < 16 ? (ballot & 0xffffu) : 0xdeadbeefu));
    }
  }
}

} // TEST_SUITE semantics
