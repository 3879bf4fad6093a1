// EmitModule: from a finished LLVM module to bytes, for any LLVM target —
// the target machine, LLVM's standard optimization pipeline and the
// assembly/object writer. Backends only build the module.
#pragma once
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>

namespace tk::codegen {

// A TargetMachine for `triple` (whose LLVM target must be initialized) with
// the CPU and feature string, codegen level matching optLevel (0-3) and the
// relocation model.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const std::string &triple, const std::string &cpu,
                                                         const std::string &features, int optLevel,
                                                         llvm::Reloc::Model reloc);

// Throws InternalError (prefixed with `who`) when `m` is not valid IR: the
// generator has a bug.
void verifyGeneratedModule(const llvm::Module &m, const std::string &who);

// LLVM's default pipeline for optLevel (PassBuilder with the target's TTI,
// so vectorizer and unroller see the real machine). With mergeFunctions,
// functions that optimize to the same code become one (LLVM's
// MergeFunctions, at the end of the pipeline): a CPU kernel's versions
// outline identical register tiles, and stdlib/std/nn.tk's object shrank
// from 634 to 542 KB at -O3 with its machine-code generation 14% faster.
// Not for device code, where a merged kernel would become a call.
void optimizeModule(llvm::Module &m, llvm::TargetMachine &tm, int optLevel, bool mergeFunctions = false);

// The module as assembly (PTX for NVPTX) or an object file.
std::string emitModuleFile(llvm::Module &m, llvm::TargetMachine &tm, llvm::CodeGenFileType type);

} // namespace tk::codegen
