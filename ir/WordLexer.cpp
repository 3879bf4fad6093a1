#include "ir/WordLexer.h"

#include <cctype>

namespace tk {

bool WordLexer::next(std::string &word, SourceLoc &loc) {
  while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) advance();
  loc = {file_, line_, col_};
  if (pos_ >= text_.size()) return false;
  size_t b = pos_;
  while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) advance();
  word = text_.substr(b, pos_ - b);
  return true;
}

std::string WordLexer::restOfLine() {
  if (pos_ < text_.size() && text_[pos_] == ' ') advance();
  size_t b = pos_;
  while (pos_ < text_.size() && text_[pos_] != '\n') advance();
  size_t e = pos_;
  if (e > b && text_[e - 1] == '\r') --e;
  return text_.substr(b, e - b);
}

void WordLexer::advance() {
  if (text_[pos_++] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
}

} // namespace tk
