// emitCpuCode: builds the LLVM module, runs LLVM's standard optimization
// pipeline for the chosen CPU and writes LLVM IR, assembly or an object file.
#include "backends/x86/EmitKernelFunction.h"
#include "backends/x86/X86Backend.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <mutex>
#include <set>

namespace tk {

static void initializeX86() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
  });
}

static llvm::OptimizationLevel optimizationLevel(int level) {
  switch (level) {
  case 0: return llvm::OptimizationLevel::O0;
  case 1: return llvm::OptimizationLevel::O1;
  case 2: return llvm::OptimizationLevel::O2;
  default: return llvm::OptimizationLevel::O3;
  }
}

static std::unique_ptr<llvm::TargetMachine> createTargetMachine(const CpuTarget &target, int optLevel) {
  std::string error;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (!t) throw InternalError("x86 backend: no LLVM target for " + target.triple + ": " + error);
  static const llvm::CodeGenOptLevel levels[] = {llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
                                                  llvm::CodeGenOptLevel::Default,
                                                  llvm::CodeGenOptLevel::Aggressive};
  llvm::TargetOptions options;
  // PIC so objects link into shared libraries as well as executables.
  return std::unique_ptr<llvm::TargetMachine>(t->createTargetMachine(
      target.triple, target.cpu, target.features, options, llvm::Reloc::PIC_, std::nullopt,
      levels[std::clamp(optLevel, 0, 3)]));
}

static void optimize(llvm::Module &m, llvm::TargetMachine &tm, int optLevel) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // Passing the TargetMachine gives the vectorizer the CPU's TTI (vector
  // width, costs) instead of a generic target.
  llvm::PassBuilder pb(&tm);
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

bool emitCpuCode(const std::vector<ir::LoweredFunc> &funcs, const CpuTarget &target, int optLevel,
                 CodegenOutput kind, const std::string &moduleName, std::string &out, DiagEngine &diags) {
  initializeX86();
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(target, optLevel);
  llvm::LLVMContext ctx;
  llvm::Module m(moduleName, ctx);
  m.setSourceFileName(moduleName);
  m.setTargetTriple(target.triple);
  m.setDataLayout(tm->createDataLayout());
  m.setPICLevel(llvm::PICLevel::BigPIC);

  size_t errorsBefore = diags.errorCount();
  x86::CodegenContext cg(m, target, diags);
  std::set<std::string> names;
  for (const ir::LoweredFunc &f : funcs) {
    if (!names.insert(f.name).second) {
      diags.error(f.loc, "symbol '" + f.name + "' is exported twice");
      continue;
    }
    x86::emitKernelFunction(cg, f);
  }
  if (diags.errorCount() > errorsBefore) return false;

  std::string verifyErrors;
  llvm::raw_string_ostream verifyOs(verifyErrors);
  if (llvm::verifyModule(m, &verifyOs))
    throw InternalError("x86 backend produced invalid LLVM IR: " + verifyOs.str());

  optimize(m, *tm, optLevel);

  out.clear();
  if (kind == CodegenOutput::LLVMIR) {
    llvm::raw_string_ostream os(out);
    m.print(os, nullptr);
    return true;
  }
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  auto fileType = kind == CodegenOutput::Assembly ? llvm::CodeGenFileType::AssemblyFile
                                                  : llvm::CodeGenFileType::ObjectFile;
  if (tm->addPassesToEmitFile(pm, os, nullptr, fileType))
    throw InternalError("x86 backend: LLVM cannot emit this file type for " + target.triple);
  pm.run(m);
  out.assign(buffer.begin(), buffer.end());
  return true;
}

} // namespace tk
