#include "frontend/antlr/SyntaxErrors.h"

#include "TkParser.h"

#include <fmt/format.h>

namespace tk {

using tkgen::TkParser;

namespace {

// What a token type reads as in "expected ..." lists.
std::string tokenTypeName(const antlr4::dfa::Vocabulary &vocab, size_t type) {
  switch (type) {
  case antlr4::Token::EOF: return "end of file";
  case TkParser::ID: return "a name";
  case TkParser::INT: return "an integer";
  case TkParser::FLOAT: return "a number";
  case TkParser::STRING: return "a string";
  default: return vocab.getLiteralName(type); // already quoted: ';'
  }
}

std::string codePointText(const std::string &utf8) {
  auto c = static_cast<unsigned char>(utf8.empty() ? 0 : utf8[0]);
  if (utf8.size() == 1 && c >= 0x20 && c < 0x7F) return "'" + utf8 + "'";
  if (utf8.size() == 1) return fmt::format("byte 0x{:02X}", c);
  return "'" + utf8 + "'";
}

bool contains(const antlr4::misc::IntervalSet &set, size_t type) { return set.contains(type); }

// The innermost enclosing rule among those that give a message its context.
size_t contextRule(antlr4::ParserRuleContext *ctx) {
  for (; ctx; ctx = dynamic_cast<antlr4::ParserRuleContext *>(ctx->parent)) {
    size_t r = ctx->getRuleIndex();
    if (r == TkParser::RuleStmt || r == TkParser::RuleImportDecl || r == TkParser::RuleExportDecl ||
        r == TkParser::RuleBlock || r == TkParser::RuleFile || r == TkParser::RuleDecl ||
        r == TkParser::RuleTypeRef || r == TkParser::RuleMapAtom || r == TkParser::RuleOpDecl ||
        r == TkParser::RuleKernelDecl)
      return r;
  }
  return TkParser::RuleFile;
}

const char *afterWhat(size_t rule) {
  switch (rule) {
  case TkParser::RuleImportDecl: return "import";
  case TkParser::RuleExportDecl: return "export";
  default: return "statement";
  }
}

} // namespace

std::string describeToken(const antlr4::Token *tok) {
  switch (tok->getType()) {
  case antlr4::Token::EOF: return "end of file";
  case TkParser::STRING: return "string " + tok->getText();
  case TkParser::ERRCHAR: return codePointText(tok->getText());
  default: return "'" + tok->getText() + "'";
  }
}

void SyntaxErrorStrategy::report(antlr4::Parser *parser, antlr4::Token *tok) {
  SourceLoc at = loc_.at(tok);
  switch (tok->getType()) {
  case TkParser::ERRCHAR:
    diags_.error(at, "unexpected character " + codePointText(tok->getText()));
    return;
  case TkParser::UNTERMINATED_STRING:
    diags_.error(at, "string literal is missing its closing '\"'");
    return;
  case TkParser::UNTERMINATED_COMMENT:
    diags_.error(at, "block comment is never closed (missing '*/')");
    return;
  default: break;
  }

  const antlr4::dfa::Vocabulary &vocab = parser->getVocabulary();
  antlr4::misc::IntervalSet expected = parser->getExpectedTokens();
  antlr4::TokenStream *tokens = parser->getTokenStream();
  antlr4::Token *prev = tok->getTokenIndex() > 0 ? tokens->get(tok->getTokenIndex() - 1) : nullptr;
  std::string found = describeToken(tok);
  std::string afterPrev = prev ? " after '" + prev->getText() + "'" : "";
  size_t rule = contextRule(parser->getContext());

  // A missing ';' is reported where it belongs: right after the statement.
  if (contains(expected, TkParser::SEMI) && prev &&
      (rule == TkParser::RuleStmt || rule == TkParser::RuleImportDecl || rule == TkParser::RuleExportDecl)) {
    bool endsHere = tok->getLine() > prev->getLine() || tok->getType() == TkParser::RBRACE ||
                    tok->getType() == antlr4::Token::EOF;
    if (endsHere) {
      diags_.error(loc_.after(prev), std::string("expected ';' after ") + afterWhat(rule));
      return;
    }
    if (contains(expected, TkParser::PLUS)) {
      diags_.error(at, "expected an operator or ';', found " + found);
      return;
    }
  }
  bool wantsExpr = contains(expected, TkParser::INT) && contains(expected, TkParser::LPAREN) &&
                   contains(expected, TkParser::MINUS);
  if (wantsExpr) {
    diags_.error(at, "expected an expression" + afterPrev + ", found " + found);
    return;
  }
  std::vector<ssize_t> types = expected.toList();
  bool onlyEof = types.size() == 1 && types[0] == static_cast<ssize_t>(antlr4::Token::EOF);
  if (rule == TkParser::RuleFile || rule == TkParser::RuleDecl) {
    if (onlyEof || (contains(expected, TkParser::OP) && contains(expected, TkParser::KERNEL))) {
      diags_.error(at, "expected 'op', 'kernel', 'import' or 'export' at top level, found " + found);
      return;
    }
  }
  bool onlyBrace = types.size() == 1 && types[0] == TkParser::RBRACE;
  if (rule == TkParser::RuleBlock && (onlyBrace || contains(expected, TkParser::FOR))) {
    diags_.error(at, "expected a statement or '}', found " + found);
    return;
  }
  if (rule == TkParser::RuleTypeRef && contains(expected, TkParser::ID)) {
    diags_.error(at, "expected a type such as f32 or f32[M, N]" + afterPrev + ", found " + found);
    return;
  }
  if (types.size() == 1) {
    diags_.error(at, "expected " + tokenTypeName(vocab, types[0]) + afterPrev + ", found " + found);
    return;
  }
  if (!types.empty() && types.size() <= 4) {
    std::string list;
    for (size_t i = 0; i < types.size(); ++i) {
      if (i) list += i + 1 == types.size() ? " or " : ", ";
      list += tokenTypeName(vocab, types[i]);
    }
    diags_.error(at, "expected " + list + afterPrev + ", found " + found);
    return;
  }
  diags_.error(at, "unexpected " + found + afterPrev);
}

void SyntaxErrorStrategy::reportError(antlr4::Parser *parser, const antlr4::RecognitionException &e) {
  antlr4::Token *tok = e.getOffendingToken();
  if (!tok) tok = parser->getCurrentToken();
  // For a failed prediction ANTLR's parser state is at the decision, but the
  // token that made every alternative fail is further on; the expected set
  // is still the one at the decision, which is what the message lists.
  report(parser, tok);
}

void SyntaxErrorStrategy::recover(antlr4::Parser *, std::exception_ptr) { throw SyntaxErrorStop{}; }

antlr4::Token *SyntaxErrorStrategy::recoverInline(antlr4::Parser *parser) {
  report(parser, parser->getCurrentToken());
  throw SyntaxErrorStop{};
}

// No single-token deletion: the first error ends the parse.
void SyntaxErrorStrategy::sync(antlr4::Parser *) {}

} // namespace tk
