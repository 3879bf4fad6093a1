// PrintAST: the text form of an AST (`--emit=ast`, golden-tested). One line
// per declaration and statement, nested by indentation and ending in
// `# line:col`; expressions are fully parenthesized so the dump shows how
// precedence and the max(a, b) / max(k) body ambiguity were resolved.
#pragma once
#include "frontend/AST.h"

#include <string>

namespace tk {

std::string printAST(const ast::File &file);
std::string printASTExpr(const ast::Expr &e);

} // namespace tk
