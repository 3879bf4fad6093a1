// What each --emit kind is to the driver: its default file extension,
// whether it is code a backend writes, and the refusal when the target's
// backend cannot write it.
#pragma once
#include "backends/Backend.h"
#include "frontend/driver/CommandLine.h"
#include "ir/MappingIR.h"

#include <string>

namespace tk::driver {

// ".o", ".ll", ".s", ".h", ".ptx"; null for the IR dumps (stdout).
const char *defaultExtension(EmitKind k);

// llvm, asm, obj, ptx: what a backend writes (the rest the driver prints).
bool isCodeEmit(EmitKind k);
backend::OutputKind outputKind(EmitKind k);

// Empty when `be` can write o.emit; else the usage error, naming the
// targets whose backend can (or, for a target whose build is a set of
// sources, asking for `-o DIR/`).
std::string emitKindRefusal(const DriverOptions &o, const backend::Backend &be);

// A checked kernel as --emit=kernel (and tkc explain) print it: `.tk`
// source named `<name>_schedule` (the op's name for a schedule tkc made,
// the kernel's for one the user wrote), so that it can be pasted beside the
// file it came from without clashing, reductions spelt as accumulator loops.
std::string kernelAsSource(const ir::Kernel &k);

} // namespace tk::driver
