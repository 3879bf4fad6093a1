// BuildAST: ANTLR parse tree -> AST (frontend/AST.h).
#pragma once
#include "frontend/AST.h"
#include "frontend/TokenLoc.h"
#include "ir/Diagnostics.h"

#include "TkParser.h"

#include <memory>

namespace tk {

// Takes: the tree of a parse that reported no syntax error. Returns the AST
// with a SourceLoc on every node, or null after reporting a literal that
// does not fit its type (integers beyond int64, floats beyond double).
std::unique_ptr<ast::File> buildAST(tkgen::TkParser::FileContext *tree, const TokenLocator &loc,
                                    DiagEngine &diags);

} // namespace tk
