// What a piece of loop IR reads from the function it is emitted in: the
// bound variables and buffers an outlined function (a parallel body, a
// register tile) must receive from its caller.
#pragma once
#include "backends/x86/CodegenContext.h"

#include <set>

namespace tk::x86 {

// The variables bound in `cg` and the buffers of cg.frame() that visited
// statements and expressions read, each once, in order of first use (so an
// outlined function's parameters, and the output, are deterministic).
struct Captures {
  std::vector<std::string> vars;
  std::vector<const ir::TensorDecl *> tensors;

  // Adds what `e` (may be null) reads.
  void expr(CodegenContext &cg, const ir::Expr &e);
  // Adds what `t`'s shape reads, and `t` itself when it is a buffer of the
  // current frame.
  void tensor(CodegenContext &cg, const ir::TensorDecl &t);
  // Adds what `s` (may be null) and everything nested in it read.
  void stmt(CodegenContext &cg, const ir::LStmtPtr &s);
  void stmt(CodegenContext &cg, const ir::LStmt &s);

private:
  std::set<std::string> seenVars_;
  std::set<const ir::TensorDecl *> seenTensors_;
};

} // namespace tk::x86
