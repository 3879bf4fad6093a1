// Parse: one .tk file (already in the SourceManager) -> AST.
#pragma once
#include "frontend/AST.h"
#include "ir/Diagnostics.h"

#include <memory>

namespace tk {

// Limits that keep the recursive-descent parser, the AST builder and every
// recursive pass over expressions within the stack on any input.
inline constexpr int kMaxNesting = 200;               // open ( [ { and else-if chains
inline constexpr int kMaxOperatorsPerStatement = 1000; // operators between ; { }

// Limits that bound the compiler's memory on any input (docs/language.md
// §9): the token stream costs ~100 bytes a token, and every declaration
// about 10 KB in the frontend and 75 KB in LLVM when compiled to code.
inline constexpr size_t kMaxTokensPerFile = 1000000;
inline constexpr size_t kMaxDeclsPerFile = 10000;

// Lexes and parses file `fileId` of `sm`. Takes: a file whose text may be
// arbitrary bytes. Returns its AST, or null after reporting the (first)
// syntax error, invalid UTF-8 or too-deep nesting to `diags`.
std::unique_ptr<ast::File> parseFile(int fileId, const SourceManager &sm, DiagEngine &diags);

} // namespace tk
