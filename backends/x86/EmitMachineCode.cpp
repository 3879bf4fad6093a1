// emitCpuCode: builds the LLVM module, runs LLVM's standard optimization
// pipeline for the chosen CPU and writes LLVM IR, assembly or an object file.
#include "backends/common/EmitModule.h"
#include "backends/common/HostCodegenContext.h"
#include "backends/x86/EmitKernelFunction.h"
#include "backends/x86/X86Backend.h"

#include <llvm/Support/raw_ostream.h>

#include <memory>
#include <set>

namespace tk {

void initializeX86Backend() { codegen::initializeX86LLVMTarget(); }

bool emitCpuCode(const std::vector<ir::LoweredFunc> &funcs, const CpuTarget &target, int optLevel,
                 CodegenOutput kind, const std::string &moduleName, std::string &out, DiagEngine &diags) {
  initializeX86Backend();
  // PIC so objects link into shared libraries as well as executables.
  std::unique_ptr<llvm::TargetMachine> tm =
      codegen::createTargetMachine(target.triple, target.cpu, target.features, optLevel, llvm::Reloc::PIC_);
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

  codegen::verifyGeneratedModule(m, "x86 backend");
  // The TargetMachine gives the vectorizer the CPU's TTI (vector width,
  // costs) instead of a generic target.
  codegen::optimizeModule(m, *tm, optLevel, /*mergeFunctions=*/true);

  out.clear();
  if (kind == CodegenOutput::LLVMIR) {
    llvm::raw_string_ostream os(out);
    m.print(os, nullptr);
    return true;
  }
  out = codegen::emitModuleFile(m, *tm, kind == CodegenOutput::Assembly ? llvm::CodeGenFileType::AssemblyFile
                                                                         : llvm::CodeGenFileType::ObjectFile);
  return true;
}

} // namespace tk
