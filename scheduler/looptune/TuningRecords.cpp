#include "scheduler/looptune/TuningRecords.h"

#include "scheduler/looptune/LowerTunedNest.h"

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <sstream>

namespace tk::looptune {
namespace {

const char *kHeader = "tkc-tuning-records";

// The whitespace-separated words of one line with their columns.
std::vector<std::pair<std::string, int>> words(std::string_view line) {
  std::vector<std::pair<std::string, int>> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > b) out.push_back({std::string(line.substr(b, i - b)), static_cast<int>(b) + 1});
  }
  return out;
}

std::optional<double> number(const std::string &s) {
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(v >= 0)) return std::nullopt;
  return v;
}

} // namespace

std::string opFingerprint(const ir::Op &op) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : ir::printOp(op)) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

std::string printTuningRecords(const std::vector<TuningRecord> &records) {
  std::ostringstream os;
  os << kHeader << " " << kRecordsVersion << "\n"
     << "# symbol fingerprint search gflops start-gflops actions...\n";
  for (const TuningRecord &r : records) {
    os << fmt::format("{} {} {} {:.3f} {:.3f}", r.symbol, r.fingerprint, r.search, r.gflops, r.startGflops);
    for (Action a : r.actions) os << " " << actionName(a);
    os << "\n";
  }
  return os.str();
}

std::optional<std::vector<TuningRecord>> parseTuningRecords(int file, const SourceManager &sm, DiagEngine &diags) {
  std::vector<TuningRecord> out;
  std::map<std::string, int> seen;
  size_t errors = diags.errorCount();
  int lines = 0;
  for (const char c : sm.contents(file)) lines += c == '\n';
  lines += !sm.contents(file).empty() && sm.contents(file).back() != '\n';
  bool header = false;
  for (int ln = 1; ln <= lines; ++ln) {
    auto w = words(sm.lineText(file, ln));
    auto at = [&](int col) { return SourceLoc{file, ln, col}; };
    if (w.empty() || w[0].first[0] == '#') continue;
    if (!header) {
      if (w[0].first != kHeader) {
        diags.error(at(w[0].second), "not a tuning-records file (expected '{} {}')", kHeader, kRecordsVersion);
        return std::nullopt;
      }
      if (w.size() != 2 || w[1].first != fmt::format("{}", kRecordsVersion)) {
        diags.error(at(w.size() > 1 ? w[1].second : w[0].second),
                    "unsupported tuning-records version (this tkc reads version {})", kRecordsVersion);
        return std::nullopt;
      }
      header = true;
      continue;
    }
    if (w.size() < 5) {
      diags.error(at(w[0].second), "a record needs: symbol fingerprint search gflops start-gflops actions...");
      continue;
    }
    TuningRecord r{w[0].first, w[1].first, w[2].first, 0, 0, {}, at(w[0].second)};
    auto g = number(w[3].first), s = number(w[4].first);
    if (!g || !s) {
      diags.error(at(!g ? w[3].second : w[4].second), "expected a non-negative number");
      continue;
    }
    r.gflops = *g;
    r.startGflops = *s;
    bool ok = true;
    for (size_t i = 5; i < w.size(); ++i) {
      auto a = parseAction(w[i].first);
      if (!a) {
        diags.error(at(w[i].second), "unknown action '" + w[i].first + "'");
        ok = false;
        break;
      }
      r.actions.push_back(*a);
    }
    if (!ok) continue;
    if (seen.count(r.symbol)) {
      diags.error(r.loc, "'{}' is recorded twice (first on line {})", r.symbol, seen[r.symbol]);
      continue;
    }
    seen[r.symbol] = ln;
    out.push_back(std::move(r));
  }
  if (!header) diags.error(SourceLoc{file, 1, 1}, "empty tuning-records file (no header line)");
  if (diags.errorCount() > errors) return std::nullopt;
  return out;
}

void applyTuningRecords(const ir::Module &m, const std::vector<TuningRecord> &records, int vectorLanes,
                        std::vector<ir::LoweredFunc> &funcs, DiagEngine &diags) {
  for (const TuningRecord &r : records) {
    const ir::Export *ex = nullptr;
    for (const ir::Export &e : m.exports)
      if (e.symbol == r.symbol) ex = &e;
    if (!ex) {
      diags.error(r.loc, "tuning record for '" + r.symbol + "', which this file does not export");
      continue;
    }
    if (ex->kernel) {
      diags.error(r.loc, "'" + r.symbol + "' has a kernel; tuning records apply to default schedules only");
      continue;
    }
    if (opFingerprint(*ex->op) != r.fingerprint) {
      diags.error(r.loc, "tuning record for '{}' was made for a different op (fingerprint {}, now {}); tune again",
                  r.symbol, r.fingerprint, opFingerprint(*ex->op));
      continue;
    }
    std::string why;
    std::optional<TuneNest> n = extractTuneNest(ex->op, &why);
    if (!n) {
      diags.error(r.loc, "'" + r.symbol + "' cannot take a tuned schedule: " + why);
      continue;
    }
    bool ok = true;
    for (size_t i = 0; i < r.actions.size() && ok; ++i) {
      if (!applies(*n, r.actions[i], vectorLanes, &why)) {
        diags.error(r.loc, "action {} ({}) of '{}' does not apply: {}", i + 1, actionName(r.actions[i]), r.symbol, why);
        ok = false;
      } else {
        *n = applyAction(*n, r.actions[i], vectorLanes);
      }
    }
    if (!ok) continue;
    for (ir::LoweredFunc &f : funcs)
      if (f.name == r.symbol) f = lowerTunedNest(*n, r.symbol);
  }
}

} // namespace tk::looptune
