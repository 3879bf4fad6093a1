// What the main file exports (its C symbols): every op defined in it (with
// the first main-file kernel for the selected target, else the default
// schedule), every main-file kernel for that target under its own name, and
// each `export NAME;` of an imported op or kernel.
#include "frontend/ReservedSymbols.h"
#include "frontend/Sema.h"
#include "frontend/SemaScope.h"

#include <map>

namespace tk::sema {

static bool sameLoc(SourceLoc a, SourceLoc b) { return a.file == b.file && a.line == b.line && a.col == b.col; }

void collectExports(const ast::File &mainFile, const FrontendOptions &opts, ir::Module &module,
                    DiagEngine &diags) {
  // Lookups by name and by op are maps: a file may hold many thousands of
  // declarations.
  std::map<std::string, ir::KernelPtr> kernelsByName;
  for (const ir::KernelPtr &k : module.kernels) kernelsByName.emplace(k->name, k);
  std::map<std::string, ir::OpPtr> opsByName;
  for (const ir::OpPtr &op : module.ops) opsByName.emplace(op->name, op);
  auto kernelNamed = [&](const std::string &name) -> ir::KernelPtr {
    auto it = kernelsByName.find(name);
    return it == kernelsByName.end() ? nullptr : it->second;
  };
  auto opNamed = [&](const std::string &name) -> ir::OpPtr {
    auto it = opsByName.find(name);
    return it == opsByName.end() ? nullptr : it->second;
  };
  // Kernels for the selected family: main-file ones first, then imported
  // ones, each list in source order.
  std::vector<ir::KernelPtr> preferred;
  for (const ast::Decl &d : mainFile.decls)
    if (d.kind == ast::Decl::Kind::Kernel)
      if (ir::KernelPtr k = kernelNamed(d.kernel->name); k && k->target == opts.target && sameLoc(k->loc, d.loc)) preferred.push_back(k);
  for (const ir::KernelPtr &k : module.kernels)
    if (k->target == opts.target && k->loc.file != mainFile.fileId) preferred.push_back(k);
  // The first preferred kernel of each op, among all and among the main file's.
  std::map<const ir::Op *, ir::KernelPtr> firstKernel, firstMainKernel;
  for (const ir::KernelPtr &k : preferred) {
    firstKernel.emplace(k->op.get(), k);
    if (k->loc.file == mainFile.fileId) firstMainKernel.emplace(k->op.get(), k);
  }
  auto kernelFor = [&](const ir::OpPtr &op, bool mainOnly) -> ir::KernelPtr {
    const auto &first = mainOnly ? firstMainKernel : firstKernel;
    auto it = first.find(op.get());
    return it == first.end() ? nullptr : it->second;
  };

  for (const ast::Decl &d : mainFile.decls) {
    if (diags.errorLimitReached()) break; // later errors are dropped: stop early
    switch (d.kind) {
    case ast::Decl::Kind::Op:
      // A duplicate definition (already reported) is not exported again.
      if (ir::OpPtr op = opNamed(d.op->name); op && sameLoc(op->loc, d.loc))
        module.exports.push_back({op->name, op, kernelFor(op, true), d.loc});
      break;
    case ast::Decl::Kind::Kernel:
      if (ir::KernelPtr k = kernelNamed(d.kernel->name); k && k->target == opts.target && sameLoc(k->loc, d.loc))
        module.exports.push_back({k->name, k->op, k, d.loc});
      break;
    case ast::Decl::Kind::Export: {
      const std::string &name = d.exported.name;
      if (ir::OpPtr op = opNamed(name)) {
        module.exports.push_back({name, op, kernelFor(op, false), d.loc});
      } else if (ir::KernelPtr k = kernelNamed(name)) {
        if (k->target != opts.target) {
          diags.error(d.exported.loc, "cannot export kernel '" + name + "': it is for " +
                                          std::string(ir::targetFamilyName(k->target)) + ", but the target is " +
                                          std::string(ir::targetFamilyName(opts.target)));
          break;
        }
        module.exports.push_back({name, k->op, k, d.loc});
      } else {
        std::vector<std::string> names;
        for (const ir::OpPtr &op : module.ops) names.push_back(op->name);
        for (const ir::KernelPtr &k : module.kernels) names.push_back(k->name);
        diags.error(d.exported.loc, "cannot export unknown op or kernel '" + name + "'" + didYouMean(name, names));
      }
      break;
    }
    case ast::Decl::Kind::Import: break;
    }
  }

  std::map<std::string, SourceLoc> seen;
  for (const ir::Export &e : module.exports) {
    if (std::string why; isReservedSymbol(e.symbol, &why))
      diags.error(e.loc, "cannot export '" + e.symbol + "' as a C symbol: " + why + "; rename it");
    auto [it, inserted] = seen.emplace(e.symbol, e.loc);
    if (!inserted)
      diags.error(e.loc, "duplicate exported symbol '" + e.symbol + "' (also exported by the declaration at " +
                             lineCol(it->second) + ")");
  }
}

} // namespace tk::sema
