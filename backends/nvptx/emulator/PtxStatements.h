// PtxStatements: PTX text -> its statements (instructions, directives,
// labels, braces), comments removed, each with the line it starts on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tk::cuemu {

struct Statement {
  std::string text; // without the trailing ';', whitespace collapsed to single blanks
  int line = 0;     // 1-based
  enum Kind { Text, Label, Open, Close } kind = Text;
};

// Splits PTX source into statements. `.section` blocks (debug information)
// are dropped whole. Sets *error and returns {} on an unterminated comment
// or statement.
std::vector<Statement> splitStatements(const std::string &ptx, std::string *error);

// A statement's words, split at blanks and commas.
std::vector<std::string> splitWords(const std::string &s);
// An operand list split at the commas outside brackets and braces.
std::vector<std::string> splitOperands(const std::string &s);
// A decimal or 0x integer, optionally negative, optionally U-suffixed.
bool parseInteger(const std::string &s, int64_t *v);

} // namespace tk::cuemu
