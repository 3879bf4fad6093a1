#include "scheduler/construct/HardwareDesc.h"

#include "ir/IntArith.h"

#include <cmath>
#include <functional>
#include <map>
#include <sstream>

namespace tk::construct {

int64_t HardwareDesc::unitCapacity(size_t l) const {
  const MemLevel &m = levels.at(l);
  return m.shared ? m.capacity / std::max(1, units) : m.capacity;
}

const MemLevel *HardwareDesc::levelFor(ir::Scope scope) const {
  for (const MemLevel &m : levels)
    if (m.scope == scope) return &m;
  return nullptr;
}

double HardwareDesc::unitBandwidth(size_t l) const {
  const MemLevel &m = levels.at(l);
  return m.shared ? m.bandwidth / std::max(1, units) : m.bandwidth;
}

namespace {

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Integer with an optional binary suffix K, M, G (1024-based): byte sizes.
std::optional<int64_t> parseSize(const std::string &v) {
  if (v.empty()) return std::nullopt;
  size_t pos = 0;
  long long n;
  try {
    n = std::stoll(v, &pos);
  } catch (...) {
    return std::nullopt;
  }
  std::string suffix = v.substr(pos);
  int64_t mult = suffix.empty() ? 1 : suffix == "K" ? 1 << 10 : suffix == "M" ? 1 << 20 : suffix == "G" ? 1LL << 30 : 0;
  if (mult == 0 || n < 0) return std::nullopt;
  return ir::checkedMul(n, mult); // 9999999999G does not fit int64: refused, not wrapped
}

std::optional<double> parseNumber(const std::string &v) {
  size_t pos = 0;
  double d;
  try {
    d = std::stod(v, &pos);
  } catch (...) {
    return std::nullopt;
  }
  if (pos != v.size() || !std::isfinite(d) || d < 0) return std::nullopt;
  return d;
}

} // namespace

std::optional<HardwareDesc> parseHardwareDesc(const std::string &text, int fileId, DiagEngine &diags) {
  size_t errorsBefore = diags.errorCount();
  HardwareDesc h;
  h.format = 0;
  bool haveFamily = false;
  MemLevel *level = nullptr;
  std::istringstream in(text);
  std::string raw;
  int lineNo = 0;
  while (std::getline(in, raw)) {
    ++lineNo;
    std::string line = raw.substr(0, raw.find('#'));
    size_t indent = line.find_first_not_of(" \t");
    line = trim(line);
    if (line.empty()) continue;
    SourceLoc loc{fileId, lineNo, static_cast<int32_t>(indent == std::string::npos ? 1 : indent + 1)};
    if (line.front() == '[') {
      std::string inner = line.back() == ']' ? trim(line.substr(1, line.size() - 2)) : "";
      if (inner.rfind("level ", 0) != 0 || trim(inner.substr(6)).empty()) {
        diags.error(loc, "expected a section header `[level NAME]`");
        continue;
      }
      h.levels.push_back({});
      level = &h.levels.back();
      level->name = trim(inner.substr(6));
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos) {
      diags.error(loc, "expected `key = value`");
      continue;
    }
    std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    size_t valueAt = raw.find_first_not_of(" \t\"", raw.find('=', loc.col - 1) + 1);
    SourceLoc vloc{fileId, lineNo, static_cast<int32_t>(valueAt == std::string::npos ? raw.size() + 1 : valueAt + 1)};
    auto size = [&](auto &out) {
      if (auto v = parseSize(value)) out = static_cast<std::decay_t<decltype(out)>>(*v);
      else diags.error(vloc, "`" + key + "` needs a non-negative integer (optionally with K, M or G), not '" + value + "'");
    };
    auto number = [&](double &out) {
      if (auto v = parseNumber(value)) out = *v;
      else diags.error(vloc, "`" + key + "` needs a non-negative number, not '" + value + "'");
    };
    auto boolean = [&](bool &out) {
      if (value == "true" || value == "false") out = value == "true";
      else diags.error(vloc, "`" + key + "` needs true or false, not '" + value + "'");
    };
    if (level) {
      static const char *levelKeys = "capacity, bandwidth, latency, transaction, banks, bank_width, shared, scope";
      if (key == "capacity") size(level->capacity);
      else if (key == "bandwidth") number(level->bandwidth);
      else if (key == "latency") number(level->latency);
      else if (key == "transaction") size(level->transaction);
      else if (key == "banks") size(level->banks);
      else if (key == "bank_width") size(level->bankWidth);
      else if (key == "shared") boolean(level->shared);
      else if (key == "scope") {
        level->scope = ir::parseScope(value);
        if (!level->scope) diags.error(vloc, "`scope` needs global, shared, register, ldm or local, not '" + value + "'");
      }
      else diags.error(loc, "unknown memory-level key `" + key + "` (expected one of " + levelKeys + ")");
      continue;
    }
    if (key == "format") {
      size(h.format);
      if (h.format != 1) diags.error(vloc, "unsupported hardware description format " + value + " (this tkc reads format 1)");
    } else if (key == "name") h.name = value;
    else if (key == "family") {
      auto f = ir::parseTargetFamily(value);
      if (f) h.family = *f, haveFamily = true;
      else diags.error(vloc, "unknown family '" + value + "' (expected cpu, cuda or sunway)");
    } else if (key == "units") size(h.units);
    else if (key == "vector_bits") size(h.vectorBits);
    else if (key == "gflops_f32") number(h.gflopsF32);
    else if (key == "gflops_f16") number(h.gflopsF16);
    else if (key == "warp_size") size(h.warpSize);
    else if (key == "max_threads_per_block") size(h.maxThreadsPerBlock);
    else if (key == "max_registers_per_thread") size(h.maxRegistersPerThread);
    else if (key == "registers_per_unit") size(h.registersPerUnit);
    else if (key == "tensor_core_shape") h.tensorCoreShape = value;
    else if (key == "barrier") number(h.barrierNs);
    else diags.error(loc, "unknown key `" + key + "`");
  }
  SourceLoc top{fileId, 1, 1};
  if (h.format == 0) diags.error(top, "hardware description lacks `format = 1`");
  if (h.name.empty()) diags.error(top, "hardware description lacks `name`");
  if (!haveFamily) diags.error(top, "hardware description lacks `family`");
  if (h.units < 1) diags.error(top, "`units` must be at least 1");
  if (h.gflopsF32 <= 0) diags.error(top, "hardware description lacks a positive `gflops_f32`");
  if (h.levels.size() < 2) diags.error(top, "a hardware description needs at least two `[level ...]` sections "
                                            "(main memory first, registers last)");
  for (const MemLevel &m : h.levels)
    if (m.capacity <= 0 || m.bandwidth <= 0)
      diags.error(top, "level `" + m.name + "` needs a positive `capacity` and `bandwidth`");
  if (diags.errorCount() > errorsBefore) return std::nullopt;
  return h;
}

std::string printHardwareDesc(const HardwareDesc &h) {
  std::ostringstream o;
  o << "format = " << h.format << "\nname = " << h.name << "\nfamily = " << ir::targetFamilyName(h.family)
    << "\nunits = " << h.units << "\n";
  auto opt = [&](const char *key, double v) {
    if (v != 0) o << key << " = " << v << "\n";
  };
  opt("vector_bits", h.vectorBits);
  opt("gflops_f32", h.gflopsF32);
  opt("gflops_f16", h.gflopsF16);
  opt("warp_size", h.warpSize);
  opt("max_threads_per_block", h.maxThreadsPerBlock);
  opt("max_registers_per_thread", h.maxRegistersPerThread);
  opt("registers_per_unit", h.registersPerUnit);
  if (!h.tensorCoreShape.empty()) o << "tensor_core_shape = " << h.tensorCoreShape << "\n";
  opt("barrier", h.barrierNs);
  for (const MemLevel &m : h.levels) {
    o << "\n[level " << m.name << "]\ncapacity = " << m.capacity << "\nbandwidth = " << m.bandwidth << "\n";
    opt("latency", m.latency);
    opt("transaction", static_cast<double>(m.transaction));
    opt("banks", m.banks);
    opt("bank_width", m.bankWidth);
    if (m.shared) o << "shared = true\n";
    if (m.scope) o << "scope = " << ir::scopeName(*m.scope) << "\n";
  }
  return o.str();
}

} // namespace tk::construct
