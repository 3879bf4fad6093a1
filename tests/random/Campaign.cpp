#include "tests/random/Campaign.h"

#include "tests/random/Subprocess.h"
#include "tests/random/Types.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <unistd.h>

namespace tk::randprog {

namespace {

enum class Verdict { Pass, Mismatch, Crash, RefusedValid, SilentInvalid, Refused, Warned, Caught, RefusedName };

const char *verdictName(Verdict v) {
  switch (v) {
  case Verdict::Pass: return "pass";
  case Verdict::Mismatch: return "mismatch";
  case Verdict::Crash: return "crash";
  case Verdict::RefusedValid: return "refused-valid";
  case Verdict::SilentInvalid: return "silent-invalid";
  case Verdict::Refused: return "refused";
  case Verdict::Warned: return "warned";
  case Verdict::Caught: return "caught";
  case Verdict::RefusedName: return "refused-name";
  }
  return "?";
}

bool isFailure(Verdict v) {
  return v == Verdict::Mismatch || v == Verdict::Crash || v == Verdict::RefusedValid || v == Verdict::SilentInvalid;
}

struct Result {
  Verdict verdict = Verdict::Pass;
  std::string config; // e.g. "-O0 x86_64-avx2"
  std::string reason;
};

// The first line of `out` matching `re`, else its last non-empty line.
std::string firstLine(const std::string &out, const std::regex &re) {
  std::string last;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t end = out.find('\n', pos);
    if (end == std::string::npos) end = out.size();
    std::string l = out.substr(pos, end - pos);
    if (std::regex_search(l, re)) return l;
    if (!l.empty()) last = l;
    pos = end + 1;
  }
  return last;
}

std::string describe(const RunResult &r) {
  if (r.timedOut) return "timed out";
  if (r.signal) return fmt::format("killed by signal {} ({})", r.signal, strsignal(r.signal));
  return fmt::format("exit {}", r.exitCode);
}

class Campaign {
public:
  explicit Campaign(const CampaignOptions &o) : o_(o) {}
  int run();

private:
  Result check(const Program &p, const std::string &file);
  RunResult runTool(const std::vector<std::string> &argv, double timeout);
  RunResult tkc(const std::string &file, const std::vector<std::string> &flags);
  RunResult difftest(const Program &p, const std::string &file, const std::string &opt, const std::string &target,
                     const std::vector<std::string> &extra);
  Result classifyCompile(const Program &p, const RunResult &r, const std::string &config);
  Result checkBadMapping(const Program &p, const std::string &file);
  void detectSanitizer();
  void record(const Program &p, const Result &r);

  const CampaignOptions &o_;
  std::string sanitizerFlag_; // how to turn on --check-mappings, empty when unavailable
  std::map<Verdict, int> counts_;
  std::map<ProgramKind, std::map<Verdict, int>> byKind_;
  int programs_ = 0;
};

// A tool that cannot be started, or a tk_difftest whose tkc or cc could not
// be started, is usually a build relinking it: wait and retry for up to two
// minutes before giving up on the campaign (exit 2).
RunResult Campaign::runTool(const std::vector<std::string> &argv, double timeout) {
  static const std::regex busy("Permission denied|Text file busy|not found|No such file");
  for (int attempt = 0;; ++attempt) {
    RunResult r = runCommand(argv, timeout);
    bool toolMissing = r.execFailed || (r.exitCode == 2 && argv[0] == o_.difftest &&
                                        r.output.find(o_.tkc + ": ") != std::string::npos &&
                                        std::regex_search(r.output, busy));
    if (!toolMissing) return r;
    if (attempt == 24) {
      std::cerr << "tk_randprog: cannot run " << argv[0] << ":\n" << r.output;
      std::exit(2);
    }
    sleep(5);
  }
}

RunResult Campaign::tkc(const std::string &file, const std::vector<std::string> &flags) {
  std::vector<std::string> argv = {o_.tkc};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"--emit=obj", file, "-o", o_.work + "/check.o"});
  return runTool(argv, 120);
}

RunResult Campaign::difftest(const Program &p, const std::string &file, const std::string &opt,
                             const std::string &target, const std::vector<std::string> &extra) {
  std::vector<std::string> argv = {o_.difftest,   "--tkc",   o_.tkc, "--libdir", o_.libdir, "--work", o_.work + "/dt",
                                   "--seed",      std::to_string(p.seed), "--trials", std::to_string(o_.trials),
                                   "--budget",    std::to_string(kBudget), "--target", target, "--tkc-flag=" + opt};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(file);
  argv.push_back(p.symbol);
  return runTool(argv, 300);
}

// tkc's verdict on a program: Pass when it compiled.
Result Campaign::classifyCompile(const Program &p, const RunResult &r, const std::string &config) {
  static const std::regex errorLine("error");
  Result res;
  res.config = config;
  if (r.timedOut || r.signal || r.exitCode >= 2 || r.exitCode < 0) {
    res.verdict = Verdict::Crash;
    res.reason = "tkc " + describe(r) + ": " + firstLine(r.output, errorLine);
  } else if (r.exitCode == 1) {
    res.verdict = p.kind == ProgramKind::BadMapping  ? Verdict::Refused
                  : p.kind == ProgramKind::NameClash ? Verdict::RefusedName
                                                     : Verdict::RefusedValid;
    res.reason = firstLine(r.output, errorLine);
  }
  return res;
}

Result Campaign::checkBadMapping(const Program &p, const std::string &file) {
  Result res;
  res.config = "-O2 host";
  if (!sanitizerFlag_.empty()) {
    RunResult d = difftest(p, file, "-O2", "host", {sanitizerFlag_});
    static const std::regex fail("FAIL|error");
    // The sanitizer returns status 8 and lists the elements on stderr
    // (docs/driver.md); wrong values alone are not a catch.
    static const std::regex caught("--check-mappings:|returned status 8");
    if (d.exitCode == 1 && std::regex_search(d.output, caught)) {
      res.verdict = Verdict::Caught;
      res.reason = firstLine(d.output, caught);
      return res;
    }
    if (d.exitCode == 2) {
      Result c = classifyCompile(p, tkc(file, {"-O2", "--check-mappings"}), res.config + " --check-mappings");
      if (c.verdict != Verdict::Pass) return c;
    }
    res.verdict = Verdict::SilentInvalid;
    res.reason = p.note + ": no error, no warning, and --check-mappings reported nothing (tk_difftest " + describe(d) +
                 (d.exitCode == 1 ? ": " + firstLine(d.output, fail) : "") + ")";
    return res;
  }
  RunResult d = difftest(p, file, "-O2", "host", {});
  static const std::regex fail("FAIL");
  std::string seen = d.exitCode == 0 ? "tk_difftest passes (e.g. a race writing equal values)"
                     : d.exitCode == 1 ? "tk_difftest: " + firstLine(d.output, fail)
                                       : "tk_difftest " + describe(d);
  res.verdict = Verdict::SilentInvalid;
  res.reason = p.note + ": no error, no warning, no --check-mappings in this tkc; " + seen;
  return res;
}

Result Campaign::check(const Program &p, const std::string &file) {
  // One compile first: tkc's own verdict (error, warning, crash) per program.
  RunResult c = tkc(file, {"-O2", "--target=host"});
  Result res = classifyCompile(p, c, "-O2 host");
  if (res.verdict != Verdict::Pass) return res;
  if (p.kind == ProgramKind::BadMapping) {
    std::regex warn(":([0-9]+):[0-9]+: warning:");
    for (std::sregex_iterator it(c.output.begin(), c.output.end(), warn), end; it != end; ++it) {
      int line = std::stoi((*it)[1]);
      if (line >= p.kernelFirstLine && line <= p.kernelLastLine) {
        res.verdict = Verdict::Warned;
        static const std::regex w("warning");
        res.reason = firstLine(c.output.substr(static_cast<size_t>(it->position())), w);
        return res;
      }
    }
    return checkBadMapping(p, file);
  }
  // Every -O level on every target, or (rotate) two of them per program.
  std::vector<std::pair<std::string, std::string>> configs;
  for (const std::string &opt : o_.optLevels)
    for (const std::string &t : o_.targets) configs.push_back({opt, t});
  if (o_.rotate && configs.size() > 2) {
    size_t n = o_.targets.size();
    configs = {{o_.optLevels.front(), o_.targets[p.seed % n]}, {o_.optLevels.back(), o_.targets[(p.seed + 1) % n]}};
  }
  static const std::regex fail("FAIL");
  for (size_t i = 0; i < configs.size(); ++i) {
    const auto &[opt, target] = configs[i];
    std::vector<std::string> extra;
    // Valid mappings must pass the sanitizer too.
    if (i == 0 && p.kind == ProgramKind::Kernel && !sanitizerFlag_.empty()) extra.push_back(sanitizerFlag_);
    std::string config = opt + " " + target + (extra.empty() ? "" : " " + extra[0]);
    RunResult d = difftest(p, file, opt, target, extra);
    if (d.exitCode == 0) continue;
    res.config = config;
    if (d.exitCode == 1) {
      res.verdict = Verdict::Mismatch;
      res.reason = firstLine(d.output, fail);
    } else if (d.exitCode == 2) {
      std::vector<std::string> flags = {opt, "--target=" + target};
      if (!extra.empty()) flags.push_back("--check-mappings");
      Result cc = classifyCompile(p, tkc(file, flags), config);
      if (cc.verdict != Verdict::Pass) return cc;
      res.verdict = Verdict::Mismatch;
      res.reason = "tk_difftest setup failed after tkc succeeded: " + firstLine(d.output, std::regex("error|failed"));
    } else {
      res.verdict = Verdict::Mismatch;
      res.reason = "tk_difftest " + describe(d) + " (the compiled code crashed or hung)";
    }
    return res;
  }
  res.verdict = Verdict::Pass;
  return res;
}

void Campaign::detectSanitizer() {
  RunResult dt = runTool({o_.difftest, "--help"}, 30);
  if (dt.output.find("--check-mappings") != std::string::npos) {
    sanitizerFlag_ = "--check-mappings";
    return;
  }
  RunResult h = runTool({o_.tkc, "--help"}, 30);
  if (h.output.find("--check-mappings") != std::string::npos) sanitizerFlag_ = "--tkc-flag=--check-mappings";
}

void Campaign::record(const Program &p, const Result &r) {
  ++counts_[r.verdict];
  ++byKind_[p.kind][r.verdict];
  ++programs_;
  bool fail = isFailure(r.verdict);
  if (fail || o_.verbose)
    std::cout << "seed " << p.seed << " (" << kindName(p.kind) << "): " << verdictName(r.verdict)
              << (r.reason.empty() ? "" : " [" + r.config + "] " + r.reason) << std::endl;
  if (!fail || o_.out.empty()) return;
  std::filesystem::create_directories(o_.out);
  std::string name = fmt::format("{}-{}.tk", verdictName(r.verdict), p.seed);
  std::ofstream(o_.out + "/" + name) << "// " << verdictName(r.verdict) << " [" << r.config << "]: " << r.reason << "\n"
                                     << p.text;
  std::ofstream(o_.out + "/failures.txt", std::ios::app)
      << p.seed << " " << verdictName(r.verdict) << " [" << r.config << "] " << r.reason << "\n";
}

int Campaign::run() {
  std::filesystem::create_directories(o_.work);
  if (!o_.out.empty() && std::filesystem::is_directory(o_.out)) {
    // Results of an earlier run in the same directory would read as current.
    static const std::regex ours("(mismatch|crash|refused-valid|silent-invalid)-[0-9]+\\.tk|failures\\.txt");
    for (const auto &e : std::filesystem::directory_iterator(o_.out))
      if (std::regex_match(e.path().filename().string(), ours)) std::filesystem::remove(e.path());
  }
  if (!getenv("TK_NUM_THREADS")) setenv("TK_NUM_THREADS", "2", 1); // exercise the parallel paths
  detectSanitizer();
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  uint64_t seed = o_.seed;
  for (; (o_.count == 0 || seed < o_.seed + o_.count) && (o_.seconds <= 0 || elapsed() < o_.seconds); ++seed) {
    Program p = generateProgram(seed, o_.kind ? &*o_.kind : nullptr);
    std::string file = fmt::format("{}/rp{}.tk", o_.work, seed);
    std::ofstream(file) << p.text;
    record(p, check(p, file));
    std::filesystem::remove(file);
    std::filesystem::remove_all(o_.work + "/dt"); // tk_difftest's objects and libraries
  }
  int failures = 0;
  for (auto &[v, n] : counts_)
    if (isFailure(v)) failures += n;
  auto c = [&](Verdict v) { return counts_.count(v) ? counts_[v] : 0; };
  std::cout << "tk_randprog campaign: seeds " << o_.seed << ".." << seed - 1 << ", " << static_cast<int>(elapsed())
            << " s, check-mappings " << (sanitizerFlag_.empty() ? "unavailable" : "on") << "\n"
            << "  programs " << programs_ << ": pass " << c(Verdict::Pass) << ", mismatch " << c(Verdict::Mismatch)
            << ", crash " << c(Verdict::Crash) << ", refused-valid " << c(Verdict::RefusedValid) << ", silent-invalid "
            << c(Verdict::SilentInvalid) << "\n"
            << "  bad mappings: refused " << c(Verdict::Refused) << ", warned " << c(Verdict::Warned) << ", caught "
            << c(Verdict::Caught) << ", silent " << c(Verdict::SilentInvalid) << "; name clashes refused "
            << c(Verdict::RefusedName) << "\n";
  for (auto &[k, m] : byKind_) {
    std::cout << "  " << kindName(k) << ":";
    for (auto &[v, n] : m) std::cout << " " << verdictName(v) << " " << n;
    std::cout << "\n";
  }
  return failures ? 1 : 0;
}

} // namespace

int runCampaign(const CampaignOptions &o) { return Campaign(o).run(); }

} // namespace tk::randprog
