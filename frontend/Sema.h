// Sema: AST of the main file and its imports -> IR Module. Split by concept:
//   SemaScope   names, scopes and spelling suggestions
//   SemaExpr    expression typing, shapes and range inference
//   SemaOp      op declarations -> ir::Op (tensor IR)
//   SemaKernel  kernels -> ir::Kernel (mapping IR)
//   SemaExports what the main file exports
// Each phase reports located errors and keeps going, so one run shows every
// independent mistake.
#pragma once
#include "frontend/AST.h"
#include "frontend/Frontend.h"

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace tk::sema {

struct OpEntry {
  ir::OpPtr op;
  const ast::OpDecl *decl;
  std::vector<std::string> intermediateNames; // invisible in kernels; named in errors
};

// Checks an op declaration. Takes: a parsed op. Returns its tensor IR (with
// erroneous statements left out; the caller looks at diags.errorCount()).
OpEntry checkOp(const ast::OpDecl &decl, DiagEngine &diags);

// Checks a kernel against the ops in `ops`. Returns its mapping IR, or null
// when the kernel names an unknown op or target (then nothing else in it is
// checked).
ir::KernelPtr checkKernel(const ast::KernelDecl &decl, const std::map<std::string, OpEntry> &ops,
                          DiagEngine &diags);

// Fills module.exports from the main file's declarations: each op defined in
// it, each kernel for opts.target, and each `export NAME;`. Reports unknown
// export names and duplicate C symbols.
void collectExports(const ast::File &mainFile, const FrontendOptions &opts, ir::Module &module,
                    DiagEngine &diags);

// Runs all phases over `files` (main file first). Returns nullopt after any
// error.
std::optional<ir::Module> analyze(const std::vector<std::unique_ptr<ast::File>> &files,
                                  const FrontendOptions &opts, DiagEngine &diags);

} // namespace tk::sema
