// NativeOp: a .tk file compiled by bin/tkc into a shared library that is
// loaded into this process, and calls of its exported functions through the
// op's C ABI. Used by the differential tests (tk_difftest) and the
// benchmarks (tk_bench).
//
// Calling convention. An exported function takes, in order: the op's inputs
// (tensors as pointers, scalar parameters by value), its outputs (pointers)
// and its shape symbols (int64_t), and returns an int status. For a cuda
// target the tensor pointers are device pointers and a `void *stream`
// follows the symbols (docs/abi.md); CudaCall.h makes the device copies.
// On x86-64 System V every pointer and integer argument is INTEGER class
// (rdi, rsi, rdx, rcx, r8, r9, then stack slots in order) and every f32/f64
// argument is SSE class (xmm0..xmm7), and the two classes are assigned
// independently. An f16 or bf16 scalar is a uint16_t bit pattern
// (docs/abi.md), so it is INTEGER class too, in its place among the
// pointers and integers (the stream likewise).
// So any such function can be called through the single pointer type
// `int(int64_t x 16, double x 8)`: integer arguments (f16/bf16 bit patterns
// included, zero-extended) go, in their relative order, into the 16 integer
// slots (surplus slots are ignored by the callee, the caller pops them), and
// each f32/f64 argument goes into the next SSE slot as a double whose bit
// pattern carries the value in its low bits (a float's 32 bits), which is
// exactly what the callee reads from the xmm register. No libffi needed; the
// limits are 16 integer-class and 8 float-class arguments, checked before
// calling.
#pragma once
#include "ir/Interpreter.h"
#include "ir/TensorIR.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tk::e2e {

struct CompileConfig {
  std::string tkc;                   // path of bin/tkc
  std::vector<std::string> tkcFlags; // e.g. {"-O2", "--target=host"}
  std::string runtimeLibDir;         // directory holding libtkrt.a
  std::string workDir;               // objects and libraries are written here
  std::string cc = "cc";             // system compiler used as the linker
  // CFLAGS of a sunway build's Makefile. -O0: gcc -O2 takes 23 s on
  // nn.tk's 290 KB of CPE source (its inlined index expressions), -O0 half
  // a second, and the trials' emulated calls are small; `sunway: stdlib
  // sources build with -O2 -Werror` and tk_sunway_bench build at -O2.
  std::string sunwayCflags = "-O0 -Wall -Wextra -Werror";
};

// A shared library built from one .tk file and loaded with dlopen.
class NativeLibrary {
public:
  // Runs `tkc <flags> --emit=obj file -o work/<stem>.o`, links it with
  // `cc -shared obj -L<libdir> -ltkrt -lm -lpthread` and dlopens the result.
  // With a --target=sunway... flag: `tkc <flags> file -o work/<stem>.sunway/`,
  // `make TK_EMULATE=1` there (tk-sw5cc next to tkc, -Werror), and the
  // resulting lib<stem>.a, emulator included, linked whole into the object.
  // With a --target=cuda... flag the object is linked with the whole of
  // <libdir>/libtkrt_cuda.a (-ldl -lpthread), so the library also exports
  // tkrt_cuda's allocation and copy functions (CudaCall.h).
  // Returns null with *error set (including the tool's output) on failure.
  static std::unique_ptr<NativeLibrary> build(const std::string &file, const CompileConfig &cfg,
                                              std::string *error);
  ~NativeLibrary();
  NativeLibrary(const NativeLibrary &) = delete;
  NativeLibrary &operator=(const NativeLibrary &) = delete;

  void *symbol(const std::string &name) const; // null if absent

private:
  explicit NativeLibrary(void *handle) : handle_(handle) {}
  void *handle_;
};

// Host memory for one tensor argument, stored in its dtype, surrounded by
// guard zones so out-of-bounds writes by a kernel are detected.
class TensorBuffer {
public:
  TensorBuffer(ir::ScalarType dtype, size_t count);
  void *data() { return base_ + kGuard; }
  const void *data() const { return base_ + kGuard; }
  size_t count() const { return count_; }
  size_t bytes() const { return count_ * static_cast<size_t>(ir::scalarTypeBytes(dtype_)); }
  void store(const std::vector<double> &values); // rounds to the dtype
  void fillNaN();                                // marks "never written" (integers: a fixed pattern)
  std::vector<double> load() const;
  bool guardsIntact() const;

private:
  static constexpr size_t kGuard = 256; // bytes on each side, keeps data 64-byte aligned
  ir::ScalarType dtype_;
  size_t count_;
  std::vector<unsigned char> storage_;
  unsigned char *base_;
};

// True for tkc flags naming a cuda target (--target=cuda, cuda-sm_80, ...).
bool isCudaTarget(const std::vector<std::string> &tkcFlags);

// The address passed for each tensor argument, by tensor name: host memory
// or, for a cuda target, device memory. Null passes a null pointer (for
// calls that must fail early).
using TensorAddresses = std::map<std::string, void *>;

// Calls `fn`, an exported function with the ABI of `op`, with the given
// tensor addresses (inputs and outputs) and the symbol and scalar values in
// `args`; with `cudaStream` a null stream follows the symbols (the default
// stream). Throws std::invalid_argument when an address is missing or the
// argument list exceeds the register limits described above.
int callExport(void *fn, const ir::Op &op, const TensorAddresses &tensors, const ir::InterpArgs &args,
               bool cudaStream = false);

// The same on host buffers (a null entry passes a null pointer).
int callExport(void *fn, const ir::Op &op, std::map<std::string, TensorBuffer *> &buffers,
               const ir::InterpArgs &args);

} // namespace tk::e2e
