// Backend: what the driver needs from the code generator of one target
// family (CPU: backends/x86, CUDA: backends/nvptx; Sunway later). A backend
// names and resolves its targets, writes the C header of its exports, and
// compiles lowered functions into one or more outputs in one run (a cuda
// compile gives the PTX and the host object that embeds it). The registry
// (Backend.cpp) holds one instance of every backend built into this tkc;
// the driver finds a backend by family or by the target name it claims,
// never by the spelling of a name. docs/architecture.md, "Backends",
// describes how to add one.
#pragma once
#include "ir/Diagnostics.h"
#include "ir/LoopIR.h"
#include "ir/Module.h"
#include "scheduler/TargetDesc.h"

#include <any>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tk::backend {

// A form of compiled code.
enum class OutputKind {
  LLVMIR,   // optimized LLVM IR text (for cuda: the device module)
  Assembly, // target assembly text
  Object,   // an x86-64 ELF relocatable object (for cuda: the host object)
  Ptx,      // PTX text of the device kernels
  // Sunway: C99 sources for the athread API
  MpeSource,    // the MPE (host) file, NAME.host.c
  CpeSource,    // the CPE (slave) file, NAME.slave.c
  ParamsHeader, // the argument structs both include, NAME.params.h
  Makefile      // builds libNAME.a (Makefile)
};

// One compiled output: its kind, the suffix of its file name when written
// next to the others ("<stem><suffix>", e.g. ".o", ".ptx") and its bytes;
// `fileName`, when set, is the whole name instead (a `Makefile`).
struct Output {
  OutputKind kind;
  std::string suffix;
  std::string bytes;
  std::string fileName = {};
};

// A target resolved by its backend.
struct Target {
  std::string name; // as given, e.g. "x86_64-avx2", "cuda"
  TargetDesc desc;  // what the scheduler plans for: family, vector width and registers
  std::any spec;    // the backend's own record (CpuTarget, CudaTarget)
};

struct EmitOptions {
  int optLevel = 2; // 0-3
  // Names the LLVM module; the driver passes the input's file name, so the
  // output does not depend on the directory the build runs in.
  std::string moduleName;
  // Threads a backend may compile on (>= 1; tkc -j).
  int jobs = 1;
};

class Backend {
public:
  virtual ~Backend() = default;

  // Short name ("x86", "nvptx") and the family of every target it compiles.
  virtual std::string_view name() const = 0;
  virtual ir::TargetFamily family() const = 0;
  // The target names resolve() accepts, in the order --version lists them.
  virtual std::vector<std::string> targetNames() const = 0;
  // True when `targetName` is spelled as one of this backend's targets (so
  // a misspelled one, `cuda-sm80`, gets this backend's error message).
  virtual bool claims(const std::string &targetName) const = 0;
  // The record for `targetName`; nullopt with *error set for a name this
  // backend does not know.
  virtual std::optional<Target> resolve(const std::string &targetName, std::string *error) const = 0;
  // The hardware description the construction optimizer assumes without
  // The hardware description `target` is compiled for without --hw
  // (docs/hardware.md): `host` (the detected CPU) only for the host target;
  // any other names a file in <stdlib>/targets, so a cross build or a build
  // farm gets the same tiles whatever machine compiles it.
  virtual std::string defaultHardware(const Target &target) const = 0;

  // Whether emit() can write `kind`.
  virtual bool canEmit(OutputKind kind) const = 0;
  // The outputs of a complete build (`-o DIR/` with --emit=obj), the
  // object first; the driver adds the C header.
  virtual std::vector<OutputKind> buildOutputs() const = 0;
  // Compiles `funcs` (lowered for family()) for `target` (from resolve())
  // into one output per entry of `kinds`, in that order; requires
  // canEmit() of each. Work the outputs share is done once. Deterministic:
  // the same input gives the same bytes. nullopt after reporting errors.
  virtual std::optional<std::vector<Output>> emit(const std::vector<ir::LoweredFunc> &funcs, const Target &target,
                                                  const EmitOptions &options, const std::vector<OutputKind> &kinds,
                                                  DiagEngine &diags) const = 0;
  // The C header declaring `exports` in this backend's host ABI
  // (docs/abi.md), guarded by `guard` (a C identifier).
  virtual std::string emitHeader(const std::vector<ir::Export> &exports, const std::string &guard) const = 0;
};

// Every backend built into this tkc, in --version order.
const std::vector<const Backend *> &registeredBackends();

// The backend of `family`; null when it is not built.
const Backend *findBackend(ir::TargetFamily family);

// Resolves a --target name with the backend that claims it. nullopt with
// *error set for a name no backend claims or its backend rejects.
std::optional<Target> resolveTarget(const std::string &targetName, std::string *error);

// All target names, space separated (for --version and messages).
std::string allTargetNames();

} // namespace tk::backend
