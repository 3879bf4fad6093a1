#include "scheduler/costmodel/NetworkFile.h"

#include "ir/WordLexer.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iterator>

namespace tk::costmodel {
namespace {

const char *kHeader = "tk-costmodel";

template <typename T> bool parseWhole(const std::string &word, T &out) {
  auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
  return ec == std::errc() && end == word.data() + word.size();
}

} // namespace

std::string formatNetworkFile(const NetworkShape &shape, const std::vector<float> &values) {
  fmt::memory_buffer out;
  auto put = std::back_inserter(out);
  fmt::format_to(put, "{} {}\nseqLen {} embed {} width {} heads {}\nlayout {}\noutputs {} {}\n", kHeader,
                 kNetworkFileVersion, shape.seqLen, shape.embed, shape.width, shape.heads, shape.layout,
                 shape.outputs.size(), fmt::join(shape.outputs, " "));
  // 9 significant digits read back as the same float.
  for (const ParameterArray &a : parameterLayout(shape)) {
    fmt::format_to(put, "{} {}\n", a.name, a.count());
    for (int r = 0; r < a.rows; ++r) {
      auto row = values.begin() + static_cast<std::ptrdiff_t>(a.offset + static_cast<size_t>(r) * a.cols);
      fmt::format_to(put, "{:.9g}\n", fmt::join(row, row + a.cols, " "));
    }
  }
  return fmt::to_string(out);
}

std::optional<NetworkWeights> parseNetworkFile(int file, const SourceManager &sm, DiagEngine &diags) {
  WordLexer lex(file, sm);
  std::string w;
  SourceLoc loc;
  auto fail = [&](std::string msg) -> std::optional<NetworkWeights> {
    diags.error(loc, std::move(msg));
    return std::nullopt;
  };
  // The next word, which must be an integer in [lo, hi].
  auto integer = [&](long long lo, long long hi, long long &out) {
    return lex.next(w, loc) && parseWhole(w, out) && out >= lo && out <= hi;
  };
  if (!lex.next(w, loc) || w != kHeader)
    return fail(fmt::format("not a cost-model weights file (expected '{} {}')", kHeader, kNetworkFileVersion));
  long long version = 0;
  if (!integer(kNetworkFileVersion, kNetworkFileVersion, version))
    return fail(fmt::format("unsupported cost-model weights version (this tkc reads version {})", kNetworkFileVersion));

  NetworkWeights net;
  NetworkShape &shape = net.shape;
  for (auto [key, field] : {std::pair{"seqLen", &shape.seqLen},
                            {"embed", &shape.embed},
                            {"width", &shape.width},
                            {"heads", &shape.heads}}) {
    if (!lex.next(w, loc) || w != key) return fail(fmt::format("expected '{} N'", key));
    long long v = 0;
    if (!integer(1, kMaxDimension, v)) return fail(fmt::format("expected {} between 1 and {}", key, kMaxDimension));
    *field = static_cast<int>(v);
  }
  if (shape.width % shape.heads != 0)
    return fail(fmt::format("heads ({}) must divide the width ({})", shape.heads, shape.width));
  if (!lex.next(w, loc) || w != "layout") return fail("expected 'layout' and the layout signature");
  shape.layout = lex.restOfLine();
  if (!lex.next(w, loc) || w != "outputs") return fail("expected 'outputs N NAME...'");
  long long nOutputs = 0;
  if (!integer(1, kMaxOutputs, nOutputs)) return fail(fmt::format("expected between 1 and {} outputs", kMaxOutputs));
  for (long long i = 0; i < nOutputs; ++i) {
    if (!lex.next(w, loc)) return fail(fmt::format("expected {} output names", nOutputs));
    for (const std::string &o : shape.outputs)
      if (o == w) return fail(fmt::format("output '{}' appears twice", w));
    shape.outputs.push_back(w);
  }

  // Values are appended as they are read, never reserved from a count: a
  // short file that declares a huge shape fails at its end, having
  // allocated no more than its own length.
  for (const ParameterArray &a : parameterLayout(shape)) {
    if (!lex.next(w, loc)) return fail(fmt::format("weights end early (expected array '{}')", a.name));
    if (w != a.name) return fail(fmt::format("expected array '{}', got '{}'", a.name, w));
    long long count = 0;
    if (!lex.next(w, loc) || !parseWhole(w, count) || count < 0)
      return fail(fmt::format("expected the number of values of '{}'", a.name));
    if (static_cast<unsigned long long>(count) != a.count())
      return fail(fmt::format("'{}' has {} values, the shape needs {}", a.name, count, a.count()));
    for (size_t i = 0; i < a.count(); ++i) {
      if (!lex.next(w, loc))
        return fail(fmt::format("weights end early ('{}' has {} of its {} values)", a.name, i, a.count()));
      float x = 0;
      if (!parseWhole(w, x) || !std::isfinite(x)) return fail(fmt::format("expected a finite float, got '{}'", w));
      net.values.push_back(x);
    }
  }
  if (lex.next(w, loc)) return fail("unexpected text after the last array");
  return net;
}

} // namespace tk::costmodel
