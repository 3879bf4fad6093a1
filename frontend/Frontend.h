// Frontend entry points: .tk source (plus imports) -> AST dump or IR Module.
// Owned by the frontend; used by the driver, the tests and the fuzz harness.
#pragma once
#include "ir/Diagnostics.h"
#include "ir/Module.h"

#include <optional>
#include <string>
#include <vector>

namespace tk {

struct FrontendOptions {
  std::vector<std::string> includeDirs; // -I, searched after the importing file's directory
  std::string stdlibDir;                // resolves `import "std/..."`
  // Kernels for this family are the ones exported/used; kernels for other
  // families are parsed and type-checked but not exported.
  ir::TargetFamily target = ir::TargetFamily::Cpu;
};

// Reads `path` (or `sourceText` when given, named `path` in diagnostics),
// resolves imports, checks names/types/shapes/scopes and builds the module.
// Every file read is added to `sm`; `dependencies` (optional) receives the
// path of the main file and of every imported file, in the order read.
// Returns nullopt after reporting at least one error to `diags`.
std::optional<ir::Module> buildModule(const std::string &path, const FrontendOptions &opts,
                                      SourceManager &sm, DiagEngine &diags,
                                      std::vector<std::string> *dependencies = nullptr,
                                      const std::string *sourceText = nullptr);

// Parses `path` only (no imports followed, no semantic checks) and returns
// the text form of its AST (`--emit=ast`). nullopt after a syntax error.
std::optional<std::string> dumpAst(const std::string &path, SourceManager &sm, DiagEngine &diags,
                                   const std::string *sourceText = nullptr);

} // namespace tk
