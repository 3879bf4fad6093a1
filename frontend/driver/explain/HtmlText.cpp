#include "frontend/driver/explain/HtmlText.h"

#include <fmt/format.h>

#include <cmath>

namespace tk::explain {

std::string escapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string pictureFill(int64_t id) {
  double hue = std::fmod(static_cast<double>(id) * 0.6180339887, 1.0) * 360.0;
  return fmt::format("hsl({:.0f},65%,{}%)", hue, 58 + 10 * (id % 3));
}

} // namespace tk::explain
