// emitCpuCode: builds the LLVM module, runs LLVM's standard optimization
// pipeline for the chosen CPU and writes LLVM IR, assembly or an object file.
// Objects of several exports are built one module per export, optimized and
// compiled on `jobs` threads, and joined by the system linker (`ld -r`).
#include "backends/common/EmitModule.h"
#include "backends/common/HostCodegenContext.h"
#include "backends/common/LinkRelocatable.h"
#include "backends/x86/EmitKernelFunction.h"
#include "backends/x86/X86Backend.h"

#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <numeric>
#include <set>
#include <system_error>
#include <thread>

namespace tk {

void initializeX86Backend() { codegen::initializeX86LLVMTarget(); }

namespace {

std::unique_ptr<llvm::TargetMachine> createCpuTargetMachine(const CpuTarget &target, int optLevel) {
  // PIC so objects link into shared libraries as well as executables.
  return codegen::createTargetMachine(target.triple, target.cpu, target.features, optLevel, llvm::Reloc::PIC_);
}

// `funcs` translated into a new module of `ctx`, verified; nullptr after
// reporting an error.
std::unique_ptr<llvm::Module> buildModule(llvm::LLVMContext &ctx, const std::vector<const ir::LoweredFunc *> &funcs,
                                          const CpuTarget &target, const llvm::TargetMachine &tm,
                                          const std::string &moduleName, DiagEngine &diags) {
  auto m = std::make_unique<llvm::Module>(moduleName, ctx);
  m->setSourceFileName(moduleName);
  m->setTargetTriple(target.triple);
  m->setDataLayout(tm.createDataLayout());
  m->setPICLevel(llvm::PICLevel::BigPIC);
  size_t errorsBefore = diags.errorCount();
  x86::CodegenContext cg(*m, target, diags);
  for (const ir::LoweredFunc *f : funcs) x86::emitKernelFunction(cg, *f);
  if (diags.errorCount() > errorsBefore) return nullptr;
  codegen::verifyGeneratedModule(*m, "x86 backend");
  return m;
}

// One export's module on its way to an object.
struct Part {
  std::unique_ptr<llvm::LLVMContext> ctx = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module;
  size_t instructions = 0;
  std::string object;
};

size_t instructionCount(const llvm::Module &m) {
  size_t n = 0;
  for (const llvm::Function &f : m) n += f.getInstructionCount();
  return n;
}

// Optimizes and compiles every part on min(jobs, parts) threads, the
// largest first so that the longest compile starts at once. Each thread
// has its own TargetMachine (the caller's `first` for this one) and each
// part its own LLVMContext, so the threads share no LLVM state. The
// objects do not depend on the thread count.
void compileParts(std::vector<Part> &parts, llvm::TargetMachine &first, const CpuTarget &target, int optLevel,
                  int jobs) {
  std::vector<size_t> order(parts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return parts[a].instructions > parts[b].instructions; });
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(parts.size());
  size_t threads = std::min(parts.size(), static_cast<size_t>(std::max(jobs, 1)));
  // `first` for the calling thread; the others' made here, so that a
  // failure to make one is reported, not thrown inside a thread.
  std::vector<std::unique_ptr<llvm::TargetMachine>> machines;
  for (size_t t = 1; t < threads; ++t) machines.push_back(createCpuTargetMachine(target, optLevel));
  auto work = [&](llvm::TargetMachine *tm) {
    for (size_t i; (i = next.fetch_add(1)) < order.size();) {
      Part &p = parts[order[i]];
      try {
        codegen::optimizeModule(*p.module, *tm, optLevel, /*mergeFunctions=*/true);
        p.object = codegen::emitModuleFile(*p.module, *tm, llvm::CodeGenFileType::ObjectFile);
      } catch (...) {
        errors[order[i]] = std::current_exception();
      }
      p.module.reset();
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(work, machines[t - 1].get());
    } catch (const std::system_error &) {
      break; // no thread to be had: the ones running share the parts
    }
  }
  work(&first);
  for (std::thread &t : pool) t.join();
  for (std::exception_ptr &e : errors)
    if (e) std::rethrow_exception(e);
}

} // namespace

bool emitCpuCode(const std::vector<ir::LoweredFunc> &funcs, const CpuTarget &target, int optLevel,
                 CodegenOutput kind, const std::string &moduleName, std::string &out, DiagEngine &diags,
                 int jobs) {
  initializeX86Backend();
  std::set<std::string> names;
  std::vector<const ir::LoweredFunc *> unique;
  size_t errorsBefore = diags.errorCount();
  for (const ir::LoweredFunc &f : funcs) {
    if (names.insert(f.name).second) unique.push_back(&f);
    else diags.error(f.loc, "symbol '" + f.name + "' is exported twice");
  }
  if (diags.errorCount() > errorsBefore) return false;
  std::unique_ptr<llvm::TargetMachine> tm = createCpuTargetMachine(target, optLevel);

  // An object of several exports: a module per export, compiled in
  // parallel and joined. Each export's code is the same as in one module:
  // exports share no code (MergeFunctions found none to merge between
  // them: stdlib/std/nn.tk's text is within 30 bytes either way).
  if (kind == CodegenOutput::Object && unique.size() > 1 && codegen::relocatableLinkerAvailable()) {
    std::vector<Part> parts(unique.size());
    bool built = true;
    for (size_t i = 0; i < unique.size(); ++i) {
      parts[i].module = buildModule(*parts[i].ctx, {unique[i]}, target, *tm, moduleName, diags);
      if (parts[i].module) parts[i].instructions = instructionCount(*parts[i].module);
      else built = false;
    }
    if (!built) return false;
    compileParts(parts, *tm, target, optLevel, jobs);
    std::vector<std::string> objects;
    for (Part &p : parts) objects.push_back(std::move(p.object));
    std::string why;
    std::optional<std::string> joined = codegen::linkRelocatable(objects, &why);
    if (!joined) throw InternalError("x86 backend: joining the exports' objects: " + why);
    out = std::move(*joined);
    return true;
  }

  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = buildModule(ctx, unique, target, *tm, moduleName, diags);
  if (!m) return false;
  // The TargetMachine gives the vectorizer the CPU's TTI (vector width,
  // costs) instead of a generic target.
  codegen::optimizeModule(*m, *tm, optLevel, /*mergeFunctions=*/true);

  out.clear();
  if (kind == CodegenOutput::LLVMIR) {
    llvm::raw_string_ostream os(out);
    m->print(os, nullptr);
    return true;
  }
  out = codegen::emitModuleFile(*m, *tm, kind == CodegenOutput::Assembly ? llvm::CodeGenFileType::AssemblyFile
                                                                          : llvm::CodeGenFileType::ObjectFile);
  return true;
}

} // namespace tk
