// EmuSemantics: the "semantics" suite's arithmetic and conversion cases (see
// EmuChecks.cpp; shfl.sync and vote.sync are in EmuShuffles.cpp): float and
// integer atomics, setp with a combining predicate, cvt rounding and
// saturation, f16/bf16 limits, lop3, bfe, mul.hi/wide, division by zero.
#include "EmuTestSupport.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace emu_test;

// ===========================================================================
// Semantics (PTX ISA 8.x), checked against the manual's definitions.
// ===========================================================================
TEST_SUITE("semantics") {

TEST_CASE("atom.global.add.f32 and atom.global.add.u32 from many blocks") {
  const std::string text = ptx(R"(
.visible .entry atoms(.param .u64 sum, .param .u64 olds)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [sum];
  ld.param.u64 %rd2, [olds];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mov.f32 %f1, 0f3F800000;
  atom.global.add.f32 %f2, [%rd1], %f1;
  mov.f32 %f3, 0f3E800000;
  red.global.add.f32 [%rd1+4], %f3;
  atom.global.add.u32 %r5, [%rd1+8], 1;
  mul.wide.u32 %rd3, %r4, 4;
  add.u64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r5;
  ret;
}
)");
  Module m(text);
  const uint32_t blocks = 64, threads = 128, n = blocks * threads;
  Buffer sum(16), olds(n * 4);
  Result r = launch(m, "atoms", {blocks}, {threads}, {&sum.ptr, &olds.ptr});
  REQUIRE_MESSAGE(r.rc == CUDA_SUCCESS, r.error);
  std::vector<uint32_t> s = sum.get<uint32_t>();
  CHECK(fromBits(s[0]) == static_cast<float>(n));
  CHECK(fromBits(s[1]) == static_cast<float>(n) * 0.25f);
  CHECK(s[2] == n);
  std::vector<uint32_t> o = olds.get<uint32_t>();
  std::sort(o.begin(), o.end());
  bool permutation = true;
  for (uint32_t i = 0; i < n; ++i) permutation = permutation && o[i] == i;
  CHECK_MESSAGE(permutation, "atom.add.u32 returned old values that are not 0..n-1 once each");
}

TEST_CASE("setp with .and/.or/.xor and the second predicate p|q") {
  // PTX ISA setp: t = (a CmpOp b); p = BoolOp(t, c); q = BoolOp(!t, c).
  const std::string body = R"(
  and.b32 %r6, %r1, 1;
  setp.ne.u32 %p3, %r6, 0;
  setp.lt.and.u32 %p1|%p2, %r2, 2, %p3;
  setp.lt.or.u32 %p4|%p5, %r2, 2, !%p3;
  setp.lt.xor.u32 %p6|%p7, %r2, 2, %p3;
  selp.u32 %r7, 1, 0, %p1;
  selp.u32 %r8, 2, 0, %p2;
  or.b32 %r4, %r7, %r8;
  selp.u32 %r7, 4, 0, %p4;
  or.b32 %r4, %r4, %r7;
  selp.u32 %r7, 8, 0, %p5;
  or.b32 %r4, %r4, %r7;
  selp.u32 %r7, 16, 0, %p6;
  or.b32 %r4, %r4, %r7;
  selp.u32 %r7, 32, 0, %p7;
  or.b32 %r4, %r4, %r7;
)";
  std::vector<Triple> in;
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t a = 0; a < 4; ++a) in.push_back({c, a, 0});
  std::vector<uint32_t> v = runOps32(body, in);
  for (size_t i = 0; i < in.size(); ++i) {
    bool c = in[i][0] != 0, t = in[i][1] < 2;
    uint32_t want = (t && c) | (!t && c) << 1 | (t || !c) << 2 | (!t || !c) << 3 | (t != c) << 4 | (!t != c) << 5;
    CAPTURE(in[i][0]);
    CAPTURE(in[i][1]);
    CHECK(v[i] == want);
  }
}

TEST_CASE("cvt.rni.s32.f32 rounds half to even; cvt.rzi saturates and maps NaN to 0") {
  const std::vector<std::pair<float, int32_t>> rni = {{2.5f, 2},  {-2.5f, -2}, {3.5f, 4},  {-3.5f, -4},
                                                      {0.5f, 0},  {1.5f, 2},   {-0.5f, 0}, {2.4999998f, 2}};
  std::vector<Triple> in;
  for (auto [f, want] : rni) in.push_back({bits(f), 0, 0});
  std::vector<uint32_t> v = runOps32("cvt.rni.s32.f32 %r4, %f1;", in);
  for (size_t i = 0; i < rni.size(); ++i) {
    CAPTURE(rni[i].first);
    CHECK(static_cast<int32_t>(v[i]) == rni[i].second);
  }

  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<std::pair<float, int32_t>> rzi = {{3e9f, INT32_MAX}, {-3e9f, INT32_MIN}, {nan, 0},
                                                      {inf, INT32_MAX},  {-inf, INT32_MIN},  {2.9f, 2},
                                                      {-2.9f, -2},       {2147483520.0f, 2147483520}};
  in.clear();
  for (auto [f, want] : rzi) in.push_back({bits(f), 0, 0});
  v = runOps32("cvt.rzi.s32.f32 %r4, %f1;", in);
  for (size_t i = 0; i < rzi.size(); ++i) {
    CAPTURE(rzi[i].first);
    CHECK(static_cast<int32_t>(v[i]) == rzi[i].second);
  }

  const std::vector<std::pair<float, uint32_t>> rziu = {{5e9f, 0xffffffffu}, {-1.5f, 0}, {nan, 0}, {7.9f, 7}};
  in.clear();
  for (auto [f, want] : rziu) in.push_back({bits(f), 0, 0});
  v = runOps32("cvt.rzi.u32.f32 %r4, %f1;", in);
  for (size_t i = 0; i < rziu.size(); ++i) {
    CAPTURE(rziu[i].first);
    CHECK(v[i] == rziu[i].second);
  }
}

TEST_CASE("cvt.rn.f16.f32 near half's limits") {
  // Largest half 65504 (0x7bff); the next step would be 65536, so 65520 is
  // the tie: it rounds to even (65536), which overflows to infinity.
  const std::vector<std::pair<float, uint16_t>> cases = {
      {65504.0f, 0x7bff},
      {65519.0f, 0x7bff},
      {65520.0f, 0x7c00},
      {-65520.0f, 0xfc00},
      {1e6f, 0x7c00},
      {std::ldexp(1.0f, -14), 0x0400},  // smallest normal
      {std::ldexp(1.0f, -24), 0x0001},  // smallest subnormal
      {std::ldexp(1.0f, -25), 0x0000},  // tie between 0 and 2^-24: even (0)
      {std::ldexp(3.0f, -26), 0x0001},  // 0.75 * 2^-24
      {std::ldexp(3.0f, -25), 0x0002},  // 1.5 * 2^-24: tie, even (2)
      {1.0f + std::ldexp(1.0f, -11), 0x3c00}, // tie: even mantissa
      {1.0f + std::ldexp(3.0f, -11), 0x3c02}, // tie: even mantissa
      {-0.0f, 0x8000},
  };
  std::vector<Triple> in;
  for (auto [f, want] : cases) in.push_back({bits(f), 0, 0});
  std::vector<uint32_t> v = runOps32("cvt.rn.f16.f32 %h1, %f1;\n  cvt.u32.u16 %r4, %h1;", in);
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("f32 " << cases[i].first << " (" << hex(bits(cases[i].first)) << ")");
    CHECK(hex(v[i]) == hex(cases[i].second));
  }
}

TEST_CASE("cvt.rn.bf16.f32 rounds ties to even") {
  const std::vector<std::pair<uint32_t, uint16_t>> cases = {
      {0x3f808000, 0x3f80}, // tie, even below
      {0x3f818000, 0x3f82}, // tie, even above
      {0x3f808001, 0x3f81}, // just above the tie
      {0x3f807fff, 0x3f80}, // just below the tie
      {0xbf818000, 0xbf82}, // negative tie
      {0x7f7f8000, 0x7f80}, // tie at the top: rounds to infinity
      {0x3f800000, 0x3f80},
  };
  std::vector<Triple> in;
  for (auto [f, want] : cases) in.push_back({f, 0, 0});
  std::vector<uint32_t> v = runOps32("cvt.rn.bf16.f32 %h1, %f1;\n  cvt.u32.u16 %r4, %h1;", in);
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("f32 bits " << hex(cases[i].first));
    CHECK(hex(v[i]) == hex(cases[i].second));
  }
  // NaN stays NaN.
  v = runOps32("cvt.rn.bf16.f32 %h1, %f1;\n  cvt.u32.u16 %r4, %h1;", {{0x7fc00000, 0, 0}, {0xffa00001, 0, 0}});
  for (uint32_t h : v) CHECK(((h & 0x7f80) == 0x7f80 && (h & 0x7f) != 0));
}

TEST_CASE("lop3.b32 with a few LUTs") {
  // PTX ISA lop3: the LUT is the operation applied to ta = 0xF0, tb = 0xCC,
  // tc = 0xAA.
  struct Lut {
    uint32_t lut;
    uint32_t (*f)(uint32_t, uint32_t, uint32_t);
  };
  const Lut luts[] = {
      {0xF0, [](uint32_t a, uint32_t, uint32_t) { return a; }},
      {0xCC, [](uint32_t, uint32_t b, uint32_t) { return b; }},
      {0xAA, [](uint32_t, uint32_t, uint32_t c) { return c; }},
      {0x96, [](uint32_t a, uint32_t b, uint32_t c) { return a ^ b ^ c; }},
      {0xE8, [](uint32_t a, uint32_t b, uint32_t c) { return (a & b) | (a & c) | (b & c); }},
      {0x80, [](uint32_t a, uint32_t b, uint32_t c) { return a & b & c; }},
      {0xFE, [](uint32_t a, uint32_t b, uint32_t c) { return a | b | c; }},
      {0xCA, [](uint32_t a, uint32_t b, uint32_t c) { return (a & b) | (~a & c); }},
      {0x1E, [](uint32_t a, uint32_t b, uint32_t c) { return a ^ (b | c); }},
      {0x00, [](uint32_t, uint32_t, uint32_t) { return 0u; }},
      {0xFF, [](uint32_t, uint32_t, uint32_t) { return 0xffffffffu; }},
  };
  const std::vector<Triple> in = {{0x12345678, 0x9abcdef0, 0x0f0f0f0f},
                                  {0xffffffff, 0x00000000, 0xaaaaaaaa},
                                  {0xdeadbeef, 0xcafebabe, 0x8badf00d}};
  for (const Lut &l : luts) {
    std::vector<uint32_t> v = runOps32("lop3.b32 %r4, %r1, %r2, %r3, " + hex(l.lut) + ";", in);
    for (size_t i = 0; i < in.size(); ++i) {
      INFO("lut " << hex(l.lut) << " input " << i);
      CHECK(hex(v[i]) == hex(l.f(in[i][0], in[i][1], in[i][2])));
    }
  }
}

TEST_CASE("bfe.s32 sign-extends from the field's top bit; bfe.u32 does not") {
  // PTX ISA bfe: pos = b & 0xff, len = c & 0xff; sbit = (unsigned || len == 0)
  // ? 0 : a[min(pos + len - 1, msb)]; d[i] = (i < len && pos + i <= msb) ?
  // a[pos + i] : sbit.
  auto ref = [](uint32_t a, uint32_t b, uint32_t c, bool sgn) {
    uint32_t pos = b & 0xff, len = c & 0xff, sbit = (!sgn || len == 0) ? 0 : (a >> std::min(pos + len - 1, 31u)) & 1;
    uint32_t d = 0;
    for (uint32_t i = 0; i < 32; ++i) d |= ((i < len && pos + i <= 31) ? (a >> (pos + i)) & 1 : sbit) << i;
    return d;
  };
  const std::vector<Triple> in = {
      {0x0000f000, 12, 4},  {0x00007000, 12, 4}, {0x0000f000, 8, 8},  {0x80000000, 28, 8},
      {0x80000000, 40, 4},  {0x7fffffff, 40, 4}, {0xffffffff, 0, 0},  {0x12345678, 4, 32},
      {0x87654321, 0, 32},  {0x00000800, 0, 12}, {0x00000800, 0, 13}, {0xabcd0000, 16, 16},
      {0x00000100, 0x108, 0x101}, // only the low 8 bits of pos and len count
  };
  std::vector<uint32_t> s = runOps32("bfe.s32 %r4, %r1, %r2, %r3;", in);
  std::vector<uint32_t> u = runOps32("bfe.u32 %r4, %r1, %r2, %r3;", in);
  for (size_t i = 0; i < in.size(); ++i) {
    INFO("a=" << hex(in[i][0]) << " pos=" << in[i][1] << " len=" << in[i][2]);
    CHECK(hex(s[i]) == hex(ref(in[i][0], in[i][1], in[i][2], true)));
    CHECK(hex(u[i]) == hex(ref(in[i][0], in[i][1], in[i][2], false)));
  }
  CHECK(s[0] == 0xffffffffu);
  CHECK(s[2] == 0xfffffff0u);
}

TEST_CASE("mul.hi.s32/u32, mul.wide.s32/u32") {
  const std::vector<Triple> in = {{static_cast<uint32_t>(-7), 0x40000000, 0},
                                  {0xffffffff, 0xffffffff, 0},
                                  {0x7fffffff, static_cast<uint32_t>(-3), 0},
                                  {0x80000000, 0x80000000, 0},
                                  {123456789, 987654321, 0}};
  std::vector<uint32_t> hs = runOps32("mul.hi.s32 %r4, %r1, %r2;", in);
  std::vector<uint32_t> hu = runOps32("mul.hi.u32 %r4, %r1, %r2;", in);
  std::vector<uint64_t> ws = runOps("mul.wide.s32 %rd6, %r1, %r2;\n  mov.b64 {%r4, %r5}, %rd6;", in);
  std::vector<uint64_t> wu = runOps("mul.wide.u32 %rd6, %r1, %r2;\n  mov.b64 {%r4, %r5}, %rd6;", in);
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t sp = static_cast<int64_t>(static_cast<int32_t>(in[i][0])) * static_cast<int32_t>(in[i][1]);
    uint64_t up = static_cast<uint64_t>(in[i][0]) * in[i][1];
    INFO("a=" << hex(in[i][0]) << " b=" << hex(in[i][1]));
    CHECK(hex(hs[i]) == hex(static_cast<uint32_t>(static_cast<uint64_t>(sp) >> 32)));
    CHECK(hex(hu[i]) == hex(static_cast<uint32_t>(up >> 32)));
    CHECK(hex(ws[i]) == hex(static_cast<uint64_t>(sp)));
    CHECK(hex(wu[i]) == hex(up));
  }
  CHECK(static_cast<int32_t>(hs[0]) == -2);
}

TEST_CASE("div and rem by zero and INT_MIN / -1 do not crash the host") {
  // The PTX ISA leaves these results unspecified; the executor must neither
  // trap (SIGFPE) nor fail the launch. Defined cases truncate toward zero.
  const std::vector<Triple> in = {{7, 0, 0},
                                  {0x80000000, static_cast<uint32_t>(-1), 0},
                                  {static_cast<uint32_t>(-7), 2, 0},
                                  {7, static_cast<uint32_t>(-2), 0},
                                  {0, 0, 0}};
  std::vector<uint64_t> s = runOps("div.s32 %r4, %r1, %r2;\n  rem.s32 %r5, %r1, %r2;", in);
  std::vector<uint64_t> u = runOps("div.u32 %r4, %r1, %r2;\n  rem.u32 %r5, %r1, %r2;", in);
  CHECK(static_cast<int32_t>(s[2] & 0xffffffff) == -3);
  CHECK(static_cast<int32_t>(s[2] >> 32) == -1);
  CHECK(static_cast<int32_t>(s[3] & 0xffffffff) == -3);
  CHECK(static_cast<int32_t>(s[3] >> 32) == 1);
  CHECK(static_cast<uint32_t>(u[2]) == 0xfffffff9u / 2);
  // 64-bit: INT64_MIN / -1 and x / 0.
  const std::string wide = R"(
  mov.b64 %rd5, {%r3, %r1};
  cvt.s64.s32 %rd6, %r2;
  div.s64 %rd7, %rd5, %rd6;
  rem.s64 %rd8, %rd5, %rd6;
  xor.b64 %rd9, %rd7, %rd8;
  mov.b64 {%r4, %r5}, %rd9;
)";
  std::vector<uint64_t> w = runOps(wide, {{0x80000000, static_cast<uint32_t>(-1), 0}, {5, 0, 0}, {0, 0, 100}});
  CHECK(w.size() == 3);
}

} // TEST_SUITE semantics
