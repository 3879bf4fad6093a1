// x86-64 backend: loop IR -> LLVM IR -> assembly / object code, in process.
#pragma once
#include "backends/Backend.h"
#include "ir/Diagnostics.h"
#include "ir/LoopIR.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tk {

// A named CPU target: `x86_64` (baseline SSE2), `x86_64-avx2` (Haswell
// level), `x86_64-avx512` (Skylake-AVX512 level), `host` (this machine).
struct CpuTarget {
  std::string name;
  std::string triple;   // e.g. x86_64-pc-linux-gnu
  std::string cpu;      // LLVM CPU name, e.g. x86-64-v3
  std::string features; // LLVM feature string
  int vectorBits = 128;
  int vectorRegisters = 16; // of that width: 16 xmm/ymm, 32 zmm with AVX-512
  bool byteDot = false;     // AVX512-VNNI (vpdpbusd on 512-bit vectors)
};
// What the scheduler plans for on `t` (TargetDesc.h).
TargetDesc cpuTargetDesc(const CpuTarget &t);
// nullopt (and *error set) for an unknown name.
std::optional<CpuTarget> resolveCpuTarget(const std::string &name, std::string *error);

enum class CodegenOutput { LLVMIR, Assembly, Object };

// Registers LLVM's x86 target (once per process; later calls do nothing).
void initializeX86Backend();

// Translates the functions into LLVM IR named after `moduleName` and writes
// the requested form to `out` (bytes): LLVM IR and assembly from one
// module; an object of several exports from one module per export,
// compiled on `jobs` threads and joined by the system linker (one module
// when there is none). Output is deterministic: the same input gives
// byte-identical output, whatever `jobs`. Returns false after reporting an
// error.
bool emitCpuCode(const std::vector<ir::LoweredFunc> &funcs, const CpuTarget &target, int optLevel,
                 CodegenOutput kind, const std::string &moduleName, std::string &out,
                 DiagEngine &diags, int jobs = 1);

// The registry's x86 backend (family cpu): the targets above, LLVM IR,
// assembly and objects through emitCpuCode, headers in the CPU ABI.
std::unique_ptr<const backend::Backend> createX86Backend();

} // namespace tk
