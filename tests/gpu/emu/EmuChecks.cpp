// EmuChecks: unit tests of tkc's PTX executor (tk_cuda_emu,
// backends/nvptx/emulator) on hand-written PTX, through the CUDA driver API.
//
//   checks     each check of the executor: the CUresult of the faulty launch
//              (or module load) and the words of its message (kernel, block,
//              thread, the PTX line of the faulty instruction), next to the
//              same kernel made correct, which must pass;
//   semantics  instructions whose PTX ISA semantics are easy to get wrong,
//              against values computed here from the manual's definitions;
//   counters   tk_cuda_emu_last_stats(): instruction counts, divergent
//              branches, occupancy.
//
// The "semantics" suite also runs on a real GPU: built against the system's
// libcuda (the executor's extra API is declared weak, so it is absent
// there), `EmuChecks -ts=semantics` checks the expected values themselves.
// Each failed launch is followed by a cuCtxSynchronize that must report it
// once; the executor's context stays usable, so every case runs in one
// process.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cuda.h>

#include "tk_cuda_emu.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

// Absent (null) when the program runs on a real CUDA driver.
#pragma weak tk_cuda_emu_last_stats
#pragma weak tk_cuda_emu_last_error

namespace {

bool emulated() { return tk_cuda_emu_last_error != nullptr; }

const char *const kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

std::string ptx(const std::string &body) { return kHeader + body; }

// Replaces every `from` in `text` by `to`.
std::string replace(std::string text, const std::string &from, const std::string &to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

bool contains(const std::string &s, const std::string &what) { return s.find(what) != std::string::npos; }

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "%#llx", static_cast<unsigned long long>(v));
  return b;
}

void init() {
  static const bool ok = [] {
    if (cuInit(0) != CUDA_SUCCESS) return false;
    CUdevice dev;
    CUcontext ctx;
    if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS) return false;
    return cuCtxSetCurrent(ctx) == CUDA_SUCCESS;
  }();
  REQUIRE_MESSAGE(ok, "cuInit / primary context failed");
}

// The 1-based line of the one line of `text` that holds `marker` (the module's
// line numbering: the PTX text starts at line 1).
int lineOf(const std::string &text, const std::string &marker) {
  size_t at = text.find(marker);
  REQUIRE_MESSAGE(at != std::string::npos, "marker " << marker << " not in the PTX");
  REQUIRE_MESSAGE(text.find(marker, at + 1) == std::string::npos, "marker " << marker << " twice in the PTX");
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

struct Module {
  std::string text;
  CUmodule handle = nullptr;
  CUresult load = CUDA_SUCCESS;
  std::string error; // tk_cuda_emu_last_error() after a failed load

  explicit Module(std::string ptxText) : text(std::move(ptxText)) {
    init();
    load = cuModuleLoadData(&handle, text.c_str());
    if (load != CUDA_SUCCESS) {
      handle = nullptr;
      if (emulated()) error = tk_cuda_emu_last_error();
    }
  }
  ~Module() {
    if (handle) cuModuleUnload(handle);
  }
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
  int line(const std::string &marker) const { return lineOf(text, marker); }
};

struct Buffer {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  explicit Buffer(size_t n) : bytes(n) {
    init();
    REQUIRE(cuMemAlloc(&ptr, n) == CUDA_SUCCESS);
    REQUIRE(cuMemsetD8(ptr, 0, n) == CUDA_SUCCESS);
  }
  template <typename T> explicit Buffer(const std::vector<T> &v) : Buffer(v.size() * sizeof(T)) {
    REQUIRE(cuMemcpyHtoD(ptr, v.data(), bytes) == CUDA_SUCCESS);
  }
  ~Buffer() { cuMemFree(ptr); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  template <typename T> std::vector<T> get() const {
    std::vector<T> v(bytes / sizeof(T));
    REQUIRE(cuMemcpyDtoH(v.data(), ptr, v.size() * sizeof(T)) == CUDA_SUCCESS);
    return v;
  }
};

struct Dim {
  unsigned x = 1, y = 1, z = 1;
};

struct Result {
  CUresult rc = CUDA_SUCCESS;
  std::string error; // the executor's message of a failed launch
  tk_cuda_emu_stats stats{};
};

// Launches `kernel`; a failure must be reported once more, and only once, by
// the next synchronize.
Result launch(const Module &m, const char *kernel, Dim grid, Dim block, std::vector<void *> args = {}) {
  REQUIRE_MESSAGE(m.load == CUDA_SUCCESS, "module load failed: " << m.error);
  CUfunction f;
  REQUIRE(cuModuleGetFunction(&f, m.handle, kernel) == CUDA_SUCCESS);
  Result r;
  r.rc = cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, nullptr,
                        args.empty() ? nullptr : args.data(), nullptr);
  if (emulated()) {
    CHECK(tk_cuda_emu_last_stats(&r.stats) == 0);
    if (r.rc != CUDA_SUCCESS) {
      r.error = tk_cuda_emu_last_error();
      CHECK(cuCtxSynchronize() == r.rc);
    }
  }
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
  return r;
}

// The words every launch failure names: kernel, block, thread and the PTX
// line of the instruction that failed.
void checkWhere(const Result &r, const char *kernel, const char *block, const char *thread, int line) {
  INFO("message: " << r.error);
  CHECK(contains(r.error, std::string("kernel '") + kernel + "'"));
  CHECK(contains(r.error, std::string("block ") + block));
  CHECK(contains(r.error, std::string("thread ") + thread));
  CHECK(contains(r.error, "PTX line " + std::to_string(line) + " "));
}

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float fromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// ---------------------------------------------------------------------------
// A kernel that applies BODY to operands %r1, %r2, %r3 (also as f32: %f1,
// %f2, %f3) read from in[3i..3i+2] and stores %r4 | %r5 << 32 to out[i]; one
// thread per triple.
const char *const kOpsKernel = R"(
.visible .entry ops(.param .u64 in, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<8>;
  .reg .b16 %h<8>;
  .reg .b32 %r<16>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r9, [n];
  mov.u32 %r0, %tid.x;
  setp.ge.u32 %p0, %r0, %r9;
  @%p0 ret;
  mul.wide.u32 %rd3, %r0, 12;
  add.u64 %rd3, %rd1, %rd3;
  ld.global.u32 %r1, [%rd3];
  ld.global.u32 %r2, [%rd3+4];
  ld.global.u32 %r3, [%rd3+8];
  mov.b32 %f1, %r1;
  mov.b32 %f2, %r2;
  mov.b32 %f3, %r3;
  mov.u32 %r4, 0;
  mov.u32 %r5, 0;
  BODY
  mul.wide.u32 %rd4, %r0, 8;
  add.u64 %rd4, %rd2, %rd4;
  st.global.v2.u32 [%rd4], {%r4, %r5};
  ret;
}
)";

using Triple = std::array<uint32_t, 3>;

std::vector<uint64_t> runOps(const std::string &body, const std::vector<Triple> &in) {
  INFO("body: " << body);
  Module m(ptx(replace(kOpsKernel, "BODY", body)));
  std::vector<uint32_t> flat;
  for (const Triple &t : in) flat.insert(flat.end(), t.begin(), t.end());
  Buffer bin(flat), bout(in.size() * 8);
  uint32_t n = static_cast<uint32_t>(in.size());
  Result r = launch(m, "ops", {1}, {n}, {&bin.ptr, &bout.ptr, &n});
  REQUIRE_MESSAGE(r.rc == CUDA_SUCCESS, r.error);
  return bout.get<uint64_t>();
}

std::vector<uint32_t> runOps32(const std::string &body, const std::vector<Triple> &in) {
  std::vector<uint32_t> out;
  for (uint64_t v : runOps(body, in)) out.push_back(static_cast<uint32_t>(v));
  return out;
}

} // namespace

// ===========================================================================
// Checks: each error the executor reports, and the corrected kernel passing.
// ===========================================================================
TEST_SUITE("checks") {

TEST_CASE("misaligned ld.global.v4.f32 and ld.global.f32") {
  if (!emulated()) return;
  // Thread t loads 16 (v4) or 4 bytes at in + off + 16 t.
  const std::string text = ptx(R"(
.visible .entry ldv4(.param .u64 in, .param .u64 out, .param .u64 off)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd3, [off];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.u64 %rd5, %rd1, %rd4;
  add.u64 %rd5, %rd5, %rd3;
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5];   // @V4
  add.f32 %f5, %f1, %f4;
  add.u64 %rd6, %rd2, %rd4;
  st.global.f32 [%rd6], %f5;
  ret;
}
.visible .entry ldf32(.param .u64 in, .param .u64 out, .param .u64 off)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd3, [off];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.u64 %rd5, %rd1, %rd4;
  add.u64 %rd5, %rd5, %rd3;
  ld.global.f32 %f1, [%rd5];   // @F32
  add.u64 %rd6, %rd2, %rd4;
  st.global.f32 [%rd6], %f1;
  ret;
}
)");
  Module m(text);
  std::vector<float> host(32 * 4 + 8, 1.0f);
  Buffer in(host), out(32 * 16);

  SUBCASE("v4 at 8 bytes past a 16-byte boundary") {
    uint64_t off = 8;
    Result r = launch(m, "ldv4", {1}, {32}, {&in.ptr, &out.ptr, &off});
    CHECK(r.rc == CUDA_ERROR_MISALIGNED_ADDRESS);
    checkWhere(r, "ldv4", "(0,0,0)", "(0,0,0)", m.line("// @V4"));
    CHECK(contains(r.error, "misaligned 16-byte global load"));
    CHECK(contains(r.error, hex(in.ptr + 8)));
  }
  SUBCASE("v4 aligned passes") {
    uint64_t off = 16;
    Result r = launch(m, "ldv4", {1}, {32}, {&in.ptr, &out.ptr, &off});
    CHECK_MESSAGE(r.rc == CUDA_SUCCESS, r.error);
  }
  SUBCASE("f32 at an odd address") {
    uint64_t off = 1;
    Result r = launch(m, "ldf32", {1}, {32}, {&in.ptr, &out.ptr, &off});
    CHECK(r.rc == CUDA_ERROR_MISALIGNED_ADDRESS);
    checkWhere(r, "ldf32", "(0,0,0)", "(0,0,0)", m.line("// @F32"));
    CHECK(contains(r.error, "misaligned 4-byte global load"));
    CHECK(contains(r.error, hex(in.ptr + 1)));
  }
  SUBCASE("f32 at a 4-byte boundary passes") {
    uint64_t off = 4;
    Result r = launch(m, "ldf32", {1}, {32}, {&in.ptr, &out.ptr, &off});
    CHECK_MESSAGE(r.rc == CUDA_SUCCESS, r.error);
  }
}

TEST_CASE("out-of-bounds shared store past a .shared array") {
  if (!emulated()) return;
  // sh has 32 words; thread t stores sh[t + 1]: thread 31 writes byte 128.
  const std::string text = ptx(R"(
.visible .entry shoob(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 sh[32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, sh;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4+4], %r1;   // @ST
  ret;
}
)");
  Module m(text);
  Buffer out(256);
  Result r = launch(m, "shoob", {1}, {32}, {&out.ptr});
  CHECK(r.rc == CUDA_ERROR_ILLEGAL_ADDRESS);
  checkWhere(r, "shoob", "(0,0,0)", "(31,0,0)", m.line("// @ST"));
  CHECK(contains(r.error, "out-of-bounds shared store of 4 bytes at offset 128"));
  SUBCASE("31 threads stay inside") {
    Result ok = launch(m, "shoob", {1}, {31}, {&out.ptr});
    CHECK_MESSAGE(ok.rc == CUDA_SUCCESS, ok.error);
  }
}

TEST_CASE("out-of-bounds global store one element past an allocation") {
  if (!emulated()) return;
  const std::string text = ptx(R"(
.visible .entry gstore(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;   // @ST
  ret;
}
)");
  Module m(text);
  Buffer out(64 * 4);
  Result r = launch(m, "gstore", {1}, {65}, {&out.ptr});
  CHECK(r.rc == CUDA_ERROR_ILLEGAL_ADDRESS);
  checkWhere(r, "gstore", "(0,0,0)", "(64,0,0)", m.line("// @ST"));
  CHECK(contains(r.error, "out-of-bounds global store of 4 bytes"));
  CHECK(contains(r.error, "0 bytes past the end of a 256-byte allocation"));
  Result ok = launch(m, "gstore", {1}, {64}, {&out.ptr});
  CHECK_MESSAGE(ok.rc == CUDA_SUCCESS, ok.error);
  std::vector<uint32_t> v = out.get<uint32_t>();
  for (uint32_t i = 0; i < 64; ++i) CHECK(v[i] == i);
}

TEST_CASE("shared-memory race: write after read between two warps") {
  if (!emulated()) return;
  // sh[t] = t, then each thread reads sh[t + 1] and overwrites sh[t]: thread
  // 31 (warp 0) reads sh[32], which thread 32 (warp 1) then writes. Correct
  // only with a bar.sync between the read and the write (SYNC).
  const std::string text = ptx(R"(
.visible .entry shift(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 sh[65];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, sh;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r9, 64;
  @%p1 st.shared.u32 [%r3+256], %r9;
  bar.sync 0;
  ld.shared.u32 %r5, [%r4+4];   // @LD
  SYNC
  add.u32 %r6, %r5, 100;
  st.shared.u32 [%r4], %r6;     // @ST
  bar.sync 0;
  ld.shared.u32 %r7, [%r4];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}
)");
  Buffer out(64 * 4);
  SUBCASE("without bar.sync: reported") {
    Module m(replace(text, "SYNC", "// no barrier"));
    Result r = launch(m, "shift", {1}, {64}, {&out.ptr});
    CHECK(r.rc == CUDA_ERROR_LAUNCH_FAILED);
    checkWhere(r, "shift", "(0,0,0)", "(32,0,0)", m.line("// @ST"));
    INFO("message: " << r.error);
    CHECK(contains(r.error, "shared-memory race (write after read)"));
    CHECK(contains(r.error, "byte offset 128"));
    CHECK(contains(r.error, "warp 0 read it"));
  }
  SUBCASE("with bar.sync: passes") {
    Module m(replace(text, "SYNC", "bar.sync 0;"));
    Result r = launch(m, "shift", {1}, {64}, {&out.ptr});
    CHECK_MESSAGE(r.rc == CUDA_SUCCESS, r.error);
    std::vector<uint32_t> v = out.get<uint32_t>();
    for (uint32_t t = 0; t < 64; ++t) CHECK(v[t] == t + 1 + 100);
  }
}

TEST_CASE("bar.sync executed by only part of a block") {
  if (!emulated()) return;
  const std::string text = ptx(R"(
.visible .entry partial(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 40;
  @%p1 ret;
  bar.sync 0;   // @BAR
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)");
  Module m(text);
  Buffer out(64 * 4);
  Result r = launch(m, "partial", {1}, {64}, {&out.ptr});
  CHECK(r.rc == CUDA_ERROR_LAUNCH_FAILED);
  checkWhere(r, "partial", "(0,0,0)", "(0,0,0)", m.line("// @BAR"));
  CHECK(contains(r.error, "bar.sync reached by 40 of the block's 64 threads"));
  CHECK(contains(r.error, "the other 24 exited"));
}

TEST_CASE("threads of one block waiting at two different bar.sync") {
  if (!emulated()) return;
  // Even threads wait at @A, odd ones at @B.
  const std::string text = ptx(R"(
.visible .entry twobars()
{
  .reg .pred %p<4>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 1;
  @%p1 bra ODD;
  bar.sync 0;   // @A
  bra DONE;
ODD:
  bar.sync 0;   // @B
DONE:
  ret;
}
)");
  Module m(text);
  Result r = launch(m, "twobars", {1}, {64});
  CHECK(r.rc == CUDA_ERROR_LAUNCH_FAILED);
  int a = m.line("// @A"), b = m.line("// @B");
  INFO("message: " << r.error);
  CHECK(contains(r.error, "kernel 'twobars'"));
  CHECK(contains(r.error, "block (0,0,0)"));
  CHECK(contains(r.error, "thread ("));
  CHECK((contains(r.error, "PTX line " + std::to_string(a) + " ") || contains(r.error, "PTX line " + std::to_string(b) + " ")));
  CHECK(contains(r.error, "different barriers"));
  CHECK((contains(r.error, "PTX lines " + std::to_string(a) + " and " + std::to_string(b)) ||
         contains(r.error, "PTX lines " + std::to_string(b) + " and " + std::to_string(a))));
}

TEST_CASE("shfl.sync with a full membermask under a branch taken by half the warp") {
  if (!emulated()) return;
  // Lanes 16..31 skip the shfl and wait at the bar.sync (they have not
  // exited): the shfl names them in its mask but they never execute it.
  const std::string text = ptx(R"(
.visible .entry halfshfl(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %laneid;
  mov.u32 %r3, %r1;
  setp.ge.u32 %p1, %r2, 16;
  @%p1 bra SKIP;
  shfl.sync.bfly.b32 %r3, %r1, 1, 0x1f, 0xffffffff;   // @SHFL
SKIP:
  bar.sync 0;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)");
  Module m(text);
  Buffer out(32 * 4);
  Result r = launch(m, "halfshfl", {1}, {32}, {&out.ptr});
  CHECK(r.rc == CUDA_ERROR_ILLEGAL_INSTRUCTION);
  checkWhere(r, "halfshfl", "(0,0,0)", "(0,0,0)", m.line("// @SHFL"));
  CHECK(contains(r.error, "membermask 0xffffffff"));
  CHECK(contains(r.error, "0x0000ffff"));
}

TEST_CASE("cp.async: reading the destination before the wait, and the correct sequence") {
  if (!emulated()) return;
  // Thread t copies in[16t .. 16t+15] to buf[16t ..] and then reads word 1 of
  // its neighbour's (t + 1 mod 64) copy.
  const std::string text = ptx(R"(
.visible .entry cpasync(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 buf[1024];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  cvt.u64.u32 %rd3, %r2;
  add.u64 %rd4, %rd1, %rd3;
  cp.async.ca.shared.global [%r4], [%rd4], 16;   // @CP
  WAIT
  add.u32 %r5, %r1, 1;
  and.b32 %r5, %r5, 63;
  shl.b32 %r6, %r5, 4;
  add.u32 %r7, %r3, %r6;
  ld.shared.u32 %r8, [%r7+4];   // @READ
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r8;
  ret;
}
)");
  std::vector<uint32_t> host(64 * 4);
  for (uint32_t i = 0; i < host.size(); ++i) host[i] = 1000 + i;
  Buffer in(host), out(64 * 4);

  SUBCASE("no wait: reported at the read") {
    Module m(replace(text, "WAIT", "// no wait"));
    Result r = launch(m, "cpasync", {1}, {64}, {&in.ptr, &out.ptr});
    CHECK(r.rc == CUDA_ERROR_LAUNCH_FAILED);
    checkWhere(r, "cpasync", "(0,0,0)", "(0,0,0)", m.line("// @READ"));
    CHECK(contains(r.error, "reads shared byte 20 while a cp.async of thread 1 is still copying"));
  }
  SUBCASE("wait_group 0 without commit_group: the copy is in no group, still reported") {
    // PTX ISA: cp.async.wait_group waits for committed groups only; a
    // cp.async not yet committed belongs to no group.
    Module m(replace(text, "WAIT", "cp.async.wait_group 0;\n  bar.sync 0;"));
    Result r = launch(m, "cpasync", {1}, {64}, {&in.ptr, &out.ptr});
    CHECK(r.rc == CUDA_ERROR_LAUNCH_FAILED);
    checkWhere(r, "cpasync", "(0,0,0)", "(0,0,0)", m.line("// @READ"));
    CHECK(contains(r.error, "cp.async"));
  }
  SUBCASE("commit + wait_group 0 but no bar.sync: a race with the other warp") {
    Module m(replace(text, "WAIT", "cp.async.commit_group;\n  cp.async.wait_group 0;"));
    Result r = launch(m, "cpasync", {1}, {64}, {&in.ptr, &out.ptr});
    CHECK(r.rc == CUDA_ERROR_LAUNCH_FAILED);
    INFO("message: " << r.error);
    CHECK(contains(r.error, "kernel 'cpasync'"));
    CHECK(contains(r.error, "shared-memory race"));
  }
  SUBCASE("commit_group + wait_group 0 + bar.sync: passes") {
    Module m(replace(text, "WAIT", "cp.async.commit_group;\n  cp.async.wait_group 0;\n  bar.sync 0;"));
    Result r = launch(m, "cpasync", {1}, {64}, {&in.ptr, &out.ptr});
    CHECK_MESSAGE(r.rc == CUDA_SUCCESS, r.error);
    std::vector<uint32_t> v = out.get<uint32_t>();
    for (uint32_t t = 0; t < 64; ++t) CHECK(v[t] == host[((t + 1) % 64) * 4 + 1]);
  }
  SUBCASE("wait_all + bar.sync: passes") {
    Module m(replace(text, "WAIT", "cp.async.wait_all;\n  bar.sync 0;"));
    Result r = launch(m, "cpasync", {1}, {64}, {&in.ptr, &out.ptr});
    CHECK_MESSAGE(r.rc == CUDA_SUCCESS, r.error);
    std::vector<uint32_t> v = out.get<uint32_t>();
    for (uint32_t t = 0; t < 64; ++t) CHECK(v[t] == host[((t + 1) % 64) * 4 + 1]);
  }
}

TEST_CASE("unknown instruction and unknown modifier: CUDA_ERROR_INVALID_PTX at load") {
  if (!emulated()) return;
  const std::string body = R"(
.visible .entry bad()
{
  .reg .b32 %r<4>;
  mov.u32 %r1, 1;
  INSTR   // @BAD
  ret;
}
)";
  SUBCASE("foo.b32") {
    Module m(ptx(replace(body, "INSTR", "foo.b32 %r2, %r1;")));
    CHECK(m.load == CUDA_ERROR_INVALID_PTX);
    INFO("message: " << m.error);
    CHECK(contains(m.error, "line " + std::to_string(m.line("// @BAD")) + ":"));
    CHECK(contains(m.error, "'foo'"));
  }
  SUBCASE("add.cc.u32") {
    // Valid PTX (add with carry-out) that the executor does not implement:
    // refused at load rather than run wrongly. Replace it here once the
    // executor implements .cc.
    Module m(ptx(replace(body, "INSTR", "add.cc.u32 %r2, %r1, %r1;")));
    CHECK(m.load == CUDA_ERROR_INVALID_PTX);
    INFO("message: " << m.error);
    CHECK(contains(m.error, "line " + std::to_string(m.line("// @BAD")) + ":"));
    CHECK(contains(m.error, "'.cc'"));
    CHECK(contains(m.error, "add.cc.u32"));
  }
  SUBCASE("a modifier PTX does not have: add.sideways.u32") {
    Module m(ptx(replace(body, "INSTR", "add.sideways.u32 %r2, %r1, %r1;")));
    CHECK(m.load == CUDA_ERROR_INVALID_PTX);
    INFO("message: " << m.error);
    CHECK(contains(m.error, "line " + std::to_string(m.line("// @BAD")) + ":"));
    CHECK(contains(m.error, "'.sideways'"));
  }
}

} // TEST_SUITE checks

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
