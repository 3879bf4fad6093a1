#include "frontend/TokenLoc.h"

#include "Token.h"

#include <algorithm>
#include <string>

namespace tk {

TokenLocator::TokenLocator(int file, std::string_view text) : file_(file) {
  cpToByte_.reserve(text.size() + 1);
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) cpToByte_.push_back(static_cast<uint32_t>(i));
    if (c == '\n') lineStarts_.push_back(static_cast<uint32_t>(i + 1));
  }
  cpToByte_.push_back(static_cast<uint32_t>(text.size()));
}

SourceLoc TokenLocator::atByte(size_t byteOffset) const {
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), static_cast<uint32_t>(byteOffset));
  int line = static_cast<int>(it - lineStarts_.begin());
  return {file_, line, static_cast<int32_t>(byteOffset - lineStarts_[line - 1] + 1)};
}

SourceLoc TokenLocator::at(const antlr4::Token *tok) const {
  size_t cp = tok->getStartIndex();
  // EOF tokens start one past the last code point.
  if (tok->getType() == antlr4::Token::EOF || cp >= cpToByte_.size()) return atByte(cpToByte_.back());
  return atByte(cpToByte_[cp]);
}

SourceLoc TokenLocator::after(const antlr4::Token *tok) const {
  if (tok->getType() == antlr4::Token::EOF) return at(tok);
  size_t cp = tok->getStopIndex() + 1;
  return atByte(cpToByte_[std::min(cp, cpToByte_.size() - 1)]);
}

size_t findInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t len;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, cp = c & 0x07;
    } else {
      return i;
    }
    if (i + len > text.size()) return i;
    for (size_t k = 1; k < len; ++k) {
      auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static const uint32_t minForLen[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < minForLen[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}

} // namespace tk
