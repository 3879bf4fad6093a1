// EmuTestSupport.cpp: the helpers declared in EmuTestSupport.h (context,
// modules, buffers, launches, text helpers, runOps) shared by the emu_checks
// test files.
#include "EmuTestSupport.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

namespace emu_test {

bool emulated() { return tk_cuda_emu_last_error != nullptr; }

namespace {
const char *const kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";
} // namespace

std::string ptx(const std::string &body) { return kHeader + body; }

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

int lineOf(const std::string &text, const std::string &marker) {
  size_t at = text.find(marker);
  REQUIRE_MESSAGE(at != std::string::npos, "marker " << marker << " not in the PTX");
  REQUIRE_MESSAGE(text.find(marker, at + 1) == std::string::npos, "marker " << marker << " twice in the PTX");
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

Module::Module(std::string ptxText) : text(std::move(ptxText)) {
  init();
  load = cuModuleLoadData(&handle, text.c_str());
  if (load != CUDA_SUCCESS) {
    handle = nullptr;
    if (emulated()) error = tk_cuda_emu_last_error();
  }
}

Module::~Module() {
  if (handle) cuModuleUnload(handle);
}

int Module::line(const std::string &marker) const { return lineOf(text, marker); }

Buffer::Buffer(size_t n) : bytes(n) {
  init();
  REQUIRE(cuMemAlloc(&ptr, n) == CUDA_SUCCESS);
  REQUIRE(cuMemsetD8(ptr, 0, n) == CUDA_SUCCESS);
}

Buffer::~Buffer() { cuMemFree(ptr); }

Result launch(const Module &m, const char *kernel, Dim grid, Dim block, std::vector<void *> args) {
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

namespace {
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
} // namespace

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

} // namespace emu_test
