// The input of one compile: a file the frontend reads (and may read again
// for imports' diagnostics), or a stream read once here — `-` or
// /dev/stdin (named `<stdin>` in diagnostics), /dev/fd/N, a FIFO — as
// Compiler Explorer and editor integrations pipe the source.
#pragma once
#include <optional>
#include <string>

namespace tk::driver {

struct Input {
  std::string name;                // in diagnostics and the depfile
  std::optional<std::string> text; // set for a stream
  const std::string *source() const { return text ? &*text : nullptr; }
  bool isStream() const { return text.has_value(); }
};

// `path` as an input: a regular file (or anything that is not a stream) is
// left for the frontend to read; a stream is read to its end, at most
// 64 MiB. nullopt with *error when a stream cannot be read or is larger.
std::optional<Input> openInput(const std::string &path, std::string *error);

} // namespace tk::driver
