// WordLexer: a source file read as whitespace-separated words, each with
// the location of its first character — what the parsers of tkc's own
// weights files (the LoopTune Q-network, the cost model's network) read, so
// that their errors point at the word at fault.
#pragma once
#include "ir/Diagnostics.h"

#include <string>

namespace tk {

class WordLexer {
public:
  // Reads file `file` of `sm`, which must outlive the lexer.
  WordLexer(int file, const SourceManager &sm) : file_(file), text_(sm.contents(file)) {}

  // The next word and where it starts; false (with `loc` at the end of the
  // file) when only whitespace is left.
  bool next(std::string &word, SourceLoc &loc);

  // The text after one separating space up to the end of the line, without
  // a carriage return (a file saved with CRLF line ends): a value that may
  // contain spaces.
  std::string restOfLine();

private:
  void advance();
  int file_;
  const std::string &text_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
};

} // namespace tk
