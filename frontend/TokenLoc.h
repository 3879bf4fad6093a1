// TokenLoc: turns ANTLR token positions (code-point indices) into SourceLocs
// (1-based line, 1-based byte column), so carets line up in files with
// non-ASCII text in comments or strings.
#pragma once
#include "ir/SourceLoc.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace antlr4 {
class Token;
}

namespace tk {

class TokenLocator {
public:
  // `text` must be valid UTF-8 (checked by findInvalidUtf8 first).
  TokenLocator(int file, std::string_view text);

  SourceLoc at(const antlr4::Token *tok) const;    // first byte of the token
  SourceLoc after(const antlr4::Token *tok) const; // just past its last byte
  SourceLoc atByte(size_t byteOffset) const;
  int file() const { return file_; }

private:
  int file_;
  std::vector<uint32_t> cpToByte_;   // code point index -> byte offset (+ end)
  std::vector<uint32_t> lineStarts_; // byte offset of each line start
};

// Byte offset of the first byte that does not start or continue a valid
// UTF-8 sequence (overlong forms, surrogates and values above U+10FFFF
// included), or npos when the whole text is valid.
size_t findInvalidUtf8(std::string_view text);

} // namespace tk
