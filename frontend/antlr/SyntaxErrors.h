// SyntaxErrors: the ANTLR error strategy of the .tk parser. It words each
// syntax error in plain terms ("expected ';' after statement"), reports it
// to the DiagEngine at the offending token and then stops the parse: one
// precise error beats a cascade of recovery guesses, and never recovering
// keeps the parser's running time linear on arbitrary input.
#pragma once
#include "frontend/TokenLoc.h"
#include "ir/Diagnostics.h"

#include "DefaultErrorStrategy.h"

namespace tk {

// Thrown (after the diagnostic is reported) to abandon the parse.
struct SyntaxErrorStop {};

class SyntaxErrorStrategy : public antlr4::DefaultErrorStrategy {
public:
  SyntaxErrorStrategy(DiagEngine &diags, const TokenLocator &loc) : diags_(diags), loc_(loc) {}

  void reportError(antlr4::Parser *parser, const antlr4::RecognitionException &e) override;
  void recover(antlr4::Parser *parser, std::exception_ptr e) override;
  antlr4::Token *recoverInline(antlr4::Parser *parser) override;
  void sync(antlr4::Parser *parser) override;

private:
  void report(antlr4::Parser *parser, antlr4::Token *offending);
  DiagEngine &diags_;
  const TokenLocator &loc_;
};

// How a token reads in a message: 'x', end of file, ...
std::string describeToken(const antlr4::Token *tok);

} // namespace tk
