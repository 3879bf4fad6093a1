#include "frontend/Frontend.h"

#include "frontend/Parse.h"
#include "frontend/PrintAST.h"
#include "frontend/ResolveImports.h"
#include "frontend/Sema.h"

namespace tk {

namespace {

// Adds the main file to `sm` (from `sourceText` or disk); -1 after an error.
int addMainFile(const std::string &path, SourceManager &sm, DiagEngine &diags, const std::string *sourceText) {
  if (sourceText) return sm.addFile(path, *sourceText);
  std::string contents;
  if (!readSourceFile(path, contents)) {
    diags.error({}, "cannot read '" + path + "' (no such regular file, or larger than 64 MiB)");
    return -1;
  }
  return sm.addFile(path, std::move(contents));
}

} // namespace

std::optional<ir::Module> buildModule(const std::string &path, const FrontendOptions &opts, SourceManager &sm,
                                      DiagEngine &diags, std::vector<std::string> *dependencies,
                                      const std::string *sourceText) {
  int main = addMainFile(path, sm, diags, sourceText);
  if (main < 0) return std::nullopt;
  if (dependencies) dependencies->push_back(path);
  std::vector<std::unique_ptr<ast::File>> files = loadProgram(main, opts, sm, diags, dependencies);
  if (files.empty()) return std::nullopt;
  return sema::analyze(files, opts, diags);
}

std::optional<std::string> dumpAst(const std::string &path, SourceManager &sm, DiagEngine &diags,
                                   const std::string *sourceText) {
  int main = addMainFile(path, sm, diags, sourceText);
  if (main < 0) return std::nullopt;
  std::unique_ptr<ast::File> file = parseFile(main, sm, diags);
  if (!file) return std::nullopt;
  return printAST(*file);
}

} // namespace tk
