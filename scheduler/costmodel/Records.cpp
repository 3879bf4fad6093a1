#include "scheduler/costmodel/Records.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>

namespace tk::costmodel {
namespace {

using json = nlohmann::json;
const char *kFormat = "tk-record";

// A field error: thrown inside one line's parse, reported at that line.
struct FieldError {
  std::string message;
};

const json &field(const json &o, const char *name, json::value_t type) {
  auto it = o.find(name);
  if (it == o.end()) throw FieldError{fmt::format("record has no '{}'", name)};
  bool ok = it->type() == type || (type == json::value_t::number_float && it->is_number()) ||
            (type == json::value_t::number_integer && it->is_number_integer());
  if (!ok) throw FieldError{fmt::format("record field '{}' has the wrong type ({})", name, it->type_name())};
  return *it;
}

std::string text(const json &o, const char *name) { return field(o, name, json::value_t::string).get<std::string>(); }

double finite(const json &v, const char *what) {
  if (!v.is_number()) throw FieldError{fmt::format("{} is not a number", what)};
  double d = v.get<double>();
  if (!std::isfinite(d)) throw FieldError{fmt::format("{} is not finite", what)};
  return d;
}

Primitive parsePrimitive(const json &j) {
  if (!j.is_object()) throw FieldError{"a decision is not an object"};
  std::string k = text(j, "k");
  auto kind = primitiveKind(k);
  if (!kind) throw FieldError{fmt::format("unknown decision kind '{}'", k)};
  Primitive p{*kind, {}, {}};
  const json &n = field(j, "n", json::value_t::array);
  if (static_cast<int>(n.size()) != primitiveNumbers(*kind))
    throw FieldError{fmt::format("decision '{}' has {} numbers, expected {}", k, n.size(), primitiveNumbers(*kind))};
  for (const json &v : n) {
    double d = finite(v, "a decision's number");
    if (d < 0) throw FieldError{fmt::format("decision '{}' has a negative number", k)};
    p.numbers.push_back(d);
  }
  size_t names = 0;
  if (auto it = j.find("s"); it != j.end()) {
    if (!it->is_array()) throw FieldError{fmt::format("decision '{}' names are not an array", k)};
    for (const json &s : *it) {
      if (!s.is_string()) throw FieldError{fmt::format("decision '{}' has a name that is not a string", k)};
      p.names.push_back(s.get<std::string>());
    }
    names = it->size();
  }
  if (static_cast<int>(names) != primitiveNames(*kind))
    throw FieldError{fmt::format("decision '{}' has {} names, expected {}", k, names, primitiveNames(*kind))};
  return p;
}

Record parseRecord(const json &o) {
  if (!o.is_object()) throw FieldError{"a record line is not a JSON object"};
  if (text(o, "format") != kFormat) throw FieldError{fmt::format("not a tkc record (format is not '{}')", kFormat)};
  int64_t version = field(o, "version", json::value_t::number_integer).get<int64_t>();
  if (version != kRecordsFormatVersion)
    throw FieldError{fmt::format("unsupported record version {} (this tkc reads version {})", version, kRecordsFormatVersion)};
  Record r;
  r.hardware = text(o, "hardware");
  r.op = text(o, "op");
  r.ir = text(o, "ir");
  r.candidate = text(o, "candidate");
  r.tkc = text(o, "tkc");
  for (const auto &[name, v] : field(o, "shape", json::value_t::object).items()) {
    if (!v.is_number_integer()) throw FieldError{fmt::format("shape value of '{}' is not an integer", name)};
    r.shape[name] = v.get<int64_t>();
  }
  for (const json &d : field(o, "decisions", json::value_t::array)) r.decisions.push_back(parsePrimitive(d));
  const json &lat = field(o, "latency", json::value_t::object);
  r.latency.median = finite(field(lat, "median_s", json::value_t::number_float), "latency median_s");
  if (r.latency.median <= 0) throw FieldError{"latency median_s is not positive"};
  r.latency.runs = static_cast<int>(field(lat, "runs", json::value_t::number_integer).get<int64_t>());
  if (r.latency.runs < 1) throw FieldError{"latency runs is not positive"};
  r.latency.spread = finite(field(lat, "spread", json::value_t::number_float), "latency spread");
  return r;
}

} // namespace

std::string Record::task() const {
  std::string s = hardware + "|" + ir;
  for (const auto &[k, v] : shape) s += fmt::format("|{}={}", k, v);
  return s;
}

std::string printRecord(const Record &r) {
  json decisions = json::array();
  for (const Primitive &p : r.decisions) {
    json d = {{"k", primitiveName(p.kind)}, {"n", p.numbers}};
    if (!p.names.empty()) d["s"] = p.names;
    decisions.push_back(std::move(d));
  }
  json shape = json::object();
  for (const auto &[k, v] : r.shape) shape[k] = v;
  json o = {{"format", kFormat},
            {"version", kRecordsFormatVersion},
            {"hardware", r.hardware},
            {"op", r.op},
            {"ir", r.ir},
            {"shape", shape},
            {"candidate", r.candidate},
            {"decisions", decisions},
            {"latency", {{"median_s", r.latency.median}, {"runs", r.latency.runs}, {"spread", r.latency.spread}}},
            {"tkc", r.tkc}};
  return o.dump();
}

std::optional<std::vector<Record>> parseRecords(int file, const SourceManager &sm, DiagEngine &diags) {
  std::vector<Record> out;
  const std::string &t = sm.contents(file);
  bool ok = true;
  int line = 1;
  for (size_t b = 0; b < t.size(); ++line) {
    size_t e = t.find('\n', b);
    if (e == std::string::npos) e = t.size();
    std::string_view l(t.data() + b, e - b);
    b = e + 1;
    if (l.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    SourceLoc loc{file, line, 1};
    try {
      Record r = parseRecord(json::parse(l));
      r.loc = loc;
      out.push_back(std::move(r));
    } catch (const json::parse_error &x) {
      // x.byte: the 1-based byte of the line where parsing failed.
      loc.col = static_cast<int>(std::min<size_t>(std::max<size_t>(x.byte, 1), l.size() + 1));
      std::string what = x.what();
      size_t colon = what.rfind(": ");
      diags.error(loc, "malformed record: " + (colon == std::string::npos ? what : what.substr(colon + 2)));
      ok = false;
    } catch (const json::exception &x) {
      diags.error(loc, std::string("malformed record: ") + x.what());
      ok = false;
    } catch (const FieldError &x) {
      diags.error(loc, x.message);
      ok = false;
    }
    if (diags.errorLimitReached()) break;
  }
  if (!ok) return std::nullopt;
  return out;
}

std::string hardwareId(const std::string &descName, const std::string &cpuModel, int units) {
  std::string raw = descName == "host" ? fmt::format("host {} {}c", cpuModel, units) : descName;
  std::string id;
  for (char c : raw) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool keep = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9');
    if (keep) id += l;
    else if (!id.empty() && id.back() != '-') id += '-';
  }
  while (!id.empty() && id.back() == '-') id.pop_back();
  return id.empty() ? "unknown" : id;
}

} // namespace tk::costmodel
