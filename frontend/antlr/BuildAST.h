// BuildAST: ANTLR parse tree -> AST (frontend/AST.h).
#pragma once
#include "frontend/AST.h"
#include "frontend/TokenLoc.h"
#include "ir/Diagnostics.h"

#include "TkParser.h"

#include <memory>

namespace tk {

// Takes: the tree of one declaration whose parse reported no syntax error.
// Appends its AST, with a SourceLoc on every node, to `file`. Returns false
// after reporting a literal that does not fit its type (integers beyond
// int64, floats beyond double).
bool appendDecl(tkgen::TkParser::DeclContext *tree, const TokenLocator &loc, DiagEngine &diags, ast::File &file);

} // namespace tk
