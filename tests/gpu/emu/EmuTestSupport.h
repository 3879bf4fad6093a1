// EmuTestSupport: what the emu_checks test files (EmuChecks.cpp,
// EmuShuffles.cpp, EmuSemantics.cpp, EmuCounters.cpp) share to run
// hand-written PTX through the CUDA driver API: the context (init), the PTX
// header (ptx), text helpers (replace, contains, hex, lineOf), RAII modules
// and device buffers, launch() and its Result (CUresult, the executor's
// message and counters), checkWhere() for the words of a launch failure,
// float bit casts (bits, fromBits) and runOps/runOps32, which run one PTX
// instruction sequence over a list of operand triples.
//
// The executor's extra API (tk_cuda_emu.h) is declared weak here, so that
// every file that includes this header links against a real libcuda too,
// where those symbols are absent (null); emulated() tells which it is.
#pragma once

#include <doctest/doctest.h>

#include <cuda.h>

#include "tk_cuda_emu.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// Absent (null) when the program runs on a real CUDA driver.
#pragma weak tk_cuda_emu_last_stats
#pragma weak tk_cuda_emu_last_error

namespace emu_test {

// True when running on tkc's executor, false on a real CUDA driver.
bool emulated();

// The PTX module header (.version, .target, .address_size) followed by `body`.
std::string ptx(const std::string &body);

// Replaces every `from` in `text` by `to`.
std::string replace(std::string text, const std::string &from, const std::string &to);

bool contains(const std::string &s, const std::string &what);

// `v` as 0x-prefixed hexadecimal.
std::string hex(uint64_t v);

// cuInit and the primary context of device 0, made current once; REQUIREs
// success.
void init();

// The 1-based line of the one line of `text` that holds `marker` (the module's
// line numbering: the PTX text starts at line 1).
int lineOf(const std::string &text, const std::string &marker);

// A module loaded from PTX text; a failed load leaves handle null and, on the
// executor, its message in `error`.
struct Module {
  std::string text;
  CUmodule handle = nullptr;
  CUresult load = CUDA_SUCCESS;
  std::string error; // tk_cuda_emu_last_error() after a failed load

  explicit Module(std::string ptxText);
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
  int line(const std::string &marker) const;
};

// A zero-filled device allocation, or one holding a copy of a host vector.
struct Buffer {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  explicit Buffer(size_t n);
  template <typename T> explicit Buffer(const std::vector<T> &v) : Buffer(v.size() * sizeof(T)) {
    REQUIRE(cuMemcpyHtoD(ptr, v.data(), bytes) == CUDA_SUCCESS);
  }
  ~Buffer();
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
Result launch(const Module &m, const char *kernel, Dim grid, Dim block, std::vector<void *> args = {});

// The words every launch failure names: kernel, block, thread and the PTX
// line of the instruction that failed.
void checkWhere(const Result &r, const char *kernel, const char *block, const char *thread, int line);

uint32_t bits(float f);
float fromBits(uint32_t b);

// Runs a kernel that applies BODY to operands %r1, %r2, %r3 (also as f32:
// %f1, %f2, %f3) taken from each triple, one thread per triple, and returns
// %r4 | %r5 << 32 of each (runOps32: %r4 alone). Registers: %p<8>,
// %h<8>, %r<16>, %f<8>, %rd<16> (EmuTestSupport.cpp, kOpsKernel).
using Triple = std::array<uint32_t, 3>;
std::vector<uint64_t> runOps(const std::string &body, const std::vector<Triple> &in);
std::vector<uint32_t> runOps32(const std::string &body, const std::vector<Triple> &in);

} // namespace emu_test
