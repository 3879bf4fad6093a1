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
// so vectorizer and unroller see the real machine).
void optimizeModule(llvm::Module &m, llvm::TargetMachine &tm, int optLevel);

// The module as assembly (PTX for NVPTX) or an object file.
std::string emitModuleFile(llvm::Module &m, llvm::TargetMachine &tm, llvm::CodeGenFileType type);

} // namespace tk::codegen
