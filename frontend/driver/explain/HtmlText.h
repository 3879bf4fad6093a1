// Text inside the `tkc explain` report's HTML: escaping, so that source
// code, diagnostics and assembly show as written.
#pragma once
#include <string>
#include <string_view>

namespace tk::explain {

// `text` with &, <, >, " and ' replaced by character references: safe in
// element content and in double- or single-quoted attribute values.
std::string escapeHtml(std::string_view text);

} // namespace tk::explain
