#include "backends/common/EmitModule.h"

#include "ir/Diagnostics.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>

namespace tk::codegen {

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const std::string &triple, const std::string &cpu,
                                                         const std::string &features, int optLevel,
                                                         llvm::Reloc::Model reloc) {
  std::string error;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!t) throw InternalError("codegen: no LLVM target for " + triple + ": " + error);
  static const llvm::CodeGenOptLevel levels[] = {llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
                                                  llvm::CodeGenOptLevel::Default,
                                                  llvm::CodeGenOptLevel::Aggressive};
  llvm::TargetOptions options;
  return std::unique_ptr<llvm::TargetMachine>(
      t->createTargetMachine(triple, cpu, features, options, reloc, std::nullopt, levels[std::clamp(optLevel, 0, 3)]));
}

void verifyGeneratedModule(const llvm::Module &m, const std::string &who) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyModule(m, &os)) throw InternalError(who + " produced invalid LLVM IR: " + os.str());
}

static llvm::OptimizationLevel optimizationLevel(int level) {
  switch (level) {
  case 0: return llvm::OptimizationLevel::O0;
  case 1: return llvm::OptimizationLevel::O1;
  case 2: return llvm::OptimizationLevel::O2;
  default: return llvm::OptimizationLevel::O3;
  }
}

void optimizeModule(llvm::Module &m, llvm::TargetMachine &tm, int optLevel, bool mergeFunctions) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.MergeFunctions = mergeFunctions;
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optimizationLevel(optLevel);
  llvm::ModulePassManager mpm = optLevel == 0 ? pb.buildO0DefaultPipeline(level)
                                              : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(m, mam);
}

std::string emitModuleFile(llvm::Module &m, llvm::TargetMachine &tm, llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type))
    throw InternalError("codegen: LLVM cannot emit this file type for " + m.getTargetTriple());
  pm.run(m);
  return std::string(buffer.begin(), buffer.end());
}

} // namespace tk::codegen
