#include "frontend/Sema.h"

#include "frontend/SemaScope.h"
#include "frontend/SemaSizes.h"

namespace tk::sema {

std::optional<ir::Module> analyze(const std::vector<std::unique_ptr<ast::File>> &files,
                                  const FrontendOptions &opts, DiagEngine &diags) {
  size_t errorsBefore = diags.errorCount();
  ir::Module module;
  std::map<std::string, OpEntry> ops;
  std::map<std::string, SourceLoc> defined; // op and kernel names share one namespace

  auto firstDefinition = [&](const std::string &name, SourceLoc loc, const char *what) {
    auto [it, inserted] = defined.emplace(name, loc);
    if (inserted) return true;
    const SourceLoc &prev = it->second;
    diags.error(loc, std::string("duplicate definition of ") + what + " '" + name + "' (first defined at " +
                         (prev.file == loc.file ? lineCol(prev) : "another file, " + lineCol(prev)) + ")");
    return false;
  };

  // Ops first, so kernels may implement ops declared later or imported.
  // Every loop stops once diags' error limit is passed (the rest of the
  // diagnostics would be dropped anyway).
  for (const auto &file : files)
    for (const ast::Decl &d : file->decls)
      if (d.kind == ast::Decl::Kind::Op && !diags.errorLimitReached() &&
          firstDefinition(d.op->name, d.op->nameLoc, "op")) {
        OpEntry entry = checkOp(*d.op, diags);
        module.ops.push_back(entry.op);
        ops.emplace(d.op->name, std::move(entry));
      }
  for (const auto &file : files)
    for (const ast::Decl &d : file->decls)
      if (d.kind == ast::Decl::Kind::Kernel && !diags.errorLimitReached() &&
          firstDefinition(d.kernel->name, d.kernel->nameLoc, "kernel"))
        if (ir::KernelPtr k = checkKernel(*d.kernel, ops, diags)) module.kernels.push_back(k);
  // Sizes last: they need each tensor's extents, and kernels' locals.
  if (!diags.errorLimitReached()) checkTensorSizes(module, diags);
  collectExports(*files.front(), opts, module, diags);
  if (diags.errorCount() > errorsBefore) return std::nullopt;
  return module;
}

} // namespace tk::sema
