// Text inside the `tkc explain` report's HTML: escaping, so that source
// code, diagnostics and assembly show as written; and the fills of its
// pictures.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace tk::explain {

// `text` with &, <, >, " and ' replaced by character references: safe in
// element content and in double- or single-quoted attribute values.
std::string escapeHtml(std::string_view text);

// The SVG fill of worker (or bank) `id`: hues spread by the golden ratio so
// that neighbouring ids differ, three lightness bands so that ids whose
// hues come back round still differ.
std::string pictureFill(int64_t id);

} // namespace tk::explain
