#include "frontend/Parse.h"

#include "frontend/TokenLoc.h"
#include "frontend/antlr/BuildAST.h"
#include "frontend/antlr/SyntaxErrors.h"

#include "TkLexer.h"
#include "TkParser.h"
#include "antlr4-runtime.h"

#include <fmt/format.h>

namespace tk {

using tkgen::TkLexer;

namespace {

bool isOperator(size_t t) {
  switch (t) {
  case TkLexer::MINUS: case TkLexer::NOT: case TkLexer::STAR: case TkLexer::SLASH: case TkLexer::PERCENT:
  case TkLexer::PLUS: case TkLexer::LT: case TkLexer::LE: case TkLexer::GT: case TkLexer::GE:
  case TkLexer::EQ: case TkLexer::NE: case TkLexer::AND: case TkLexer::OR: case TkLexer::SUM:
  case TkLexer::PROD: case TkLexer::MEAN: case TkLexer::MAX: case TkLexer::MIN:
    return true;
  default: return false;
  }
}

// Rejects inputs whose parse (and later expression trees) would nest deeper
// than the limits in Parse.h. Bracket depth plus else-if chains bound the
// statement nesting; the operator count bounds expression depth, since a
// chain like a + b + ... nests one level per operator in the tree.
bool checkNesting(const std::vector<antlr4::Token *> &tokens, const TokenLocator &loc, DiagEngine &diags) {
  std::vector<int> elseIfs{0}; // per open bracket
  int depth = 0, operators = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    size_t t = tokens[i]->getType();
    if (t == TkLexer::LPAREN || t == TkLexer::LBRACK || t == TkLexer::LBRACE) {
      elseIfs.push_back(0);
      if (++depth + elseIfs[elseIfs.size() - 2] > kMaxNesting) {
        diags.error(loc.at(tokens[i]), "nesting deeper than {} levels; split the code into smaller pieces",
                    kMaxNesting);
        return false;
      }
    } else if ((t == TkLexer::RPAREN || t == TkLexer::RBRACK || t == TkLexer::RBRACE) && depth > 0) {
      --depth;
      elseIfs.pop_back();
      bool continuesChain = i + 1 < tokens.size() && tokens[i + 1]->getType() == TkLexer::ELSE;
      if (t == TkLexer::RBRACE && !continuesChain) elseIfs.back() = 0;
    } else if (t == TkLexer::ELSE && i + 1 < tokens.size() && tokens[i + 1]->getType() == TkLexer::IF) {
      ++elseIfs.back();
    }
    if (t == TkLexer::SEMI || t == TkLexer::LBRACE || t == TkLexer::RBRACE) operators = 0;
    if (isOperator(t) && ++operators > kMaxOperatorsPerStatement) {
      diags.error(loc.at(tokens[i]),
                  "expression too complex (more than {} operators in one statement); split it with intermediate "
                  "tensors",
                  kMaxOperatorsPerStatement);
      return false;
    }
  }
  return true;
}

// The lexer, stopped at the first token past kMaxTokensPerFile so that a
// huge input is refused before its tokens fill memory.
class BoundedLexer : public TkLexer {
public:
  struct TooManyTokens {
    SourceLoc loc;
  };
  BoundedLexer(antlr4::CharStream *input, const TokenLocator &loc) : TkLexer(input), loc_(loc) {}
  std::unique_ptr<antlr4::Token> nextToken() override {
    std::unique_ptr<antlr4::Token> t = TkLexer::nextToken();
    if (++count_ > kMaxTokensPerFile) throw TooManyTokens{loc_.at(t.get())};
    return t;
  }

private:
  const TokenLocator &loc_;
  size_t count_ = 0;
};

} // namespace

std::unique_ptr<ast::File> parseFile(int fileId, const SourceManager &sm, DiagEngine &diags) {
  const std::string &text = sm.contents(fileId);
  TokenLocator locator(fileId, text);
  size_t bad = findInvalidUtf8(text);
  if (bad != std::string::npos) {
    diags.error(locator.atByte(bad), "invalid UTF-8 byte 0x{:02X}", static_cast<unsigned char>(text[bad]));
    return nullptr;
  }

  antlr4::ANTLRInputStream input(text);
  BoundedLexer lexer(&input, locator);
  lexer.removeErrorListeners(); // ERRCHAR matches anything the other rules do not
  antlr4::CommonTokenStream tokens(&lexer);
  try {
    tokens.fill();
  } catch (const BoundedLexer::TooManyTokens &e) {
    diags.error(e.loc, "file too large: more than {} tokens; split it into files that import each other",
                kMaxTokensPerFile);
    return nullptr;
  }
  if (!checkNesting(tokens.getTokens(), locator, diags)) return nullptr;

  tkgen::TkParser parser(&tokens);
  parser.removeErrorListeners();
  parser.setErrorHandler(std::make_shared<SyntaxErrorStrategy>(diags, locator));
  auto file = std::make_unique<ast::File>();
  file->fileId = fileId;
  bool ok = true;
  try {
    // One declaration at a time: the parser owns every tree node until it
    // is reset, so a file of many declarations would otherwise hold all of
    // their trees at once (about 10 KB per one-line op).
    while (tokens.LA(1) != antlr4::Token::EOF) {
      if (file->decls.size() == kMaxDeclsPerFile) {
        diags.error(locator.at(tokens.LT(1)),
                    "more than {} declarations in one file; split it into files that import each other",
                    kMaxDeclsPerFile);
        return nullptr;
      }
      ok &= appendDecl(parser.decl(), locator, diags, *file);
      size_t next = tokens.index();
      parser.reset(); // frees the tree and rewinds the stream
      tokens.seek(next);
    }
  } catch (const SyntaxErrorStop &) {
    return nullptr;
  }
  return ok ? std::move(file) : nullptr;
}

} // namespace tk
