// tk_check: runs the frontend (tk::buildModule) on one .tk file, without the
// driver, for the expected-diagnostic tests; with --schedule or --lower also
// the scheduler, for the checks that live there.
//
//   tk_check [--target=cpu|cuda|sunway] [-I DIR] [--stdlib DIR]
//            [--schedule | --lower] [--hole=ID=VALUE]... [--verify] FILE
//
// --schedule runs tk::scheduleModule (holes, requirements, worker limits,
// write conflicts and coverage: what `tkc --emit=mapping` reports) for the
// exports of the --target family (also cuda and sunway, which tkc does not
// compile yet); --lower runs tk::lowerModule (the same checks, then the
// lowering passes and their verifiers). Both run only when the frontend
// reported no error. --hole=ID=VALUE gives hole ?ID of every kernel a value
// before scheduling, like the construction optimizer would.
//
// Without --verify: prints diagnostics to stderr; exit status 1 when there
// is an error, else 0. With --verify: compares the diagnostics with the
// expectations written in FILE as comments and exits 0 only when they match
// one to one (message text, line and column):
//   // expect-error@+1:13: unknown tensor 'Q'     (line relative to the comment)
//   // expect-warning@7:3: ...                    (absolute line)
//   // expect-error@-2: ...                       (any column)
// Notes are compared only in files that expect at least one note.
#include "frontend/Frontend.h"
#include "scheduler/Pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

namespace {

struct Expectation {
  tk::Severity severity;
  int line, col; // col 0 = any
  std::string message;
  int commentLine;
  bool matched = false;
};

std::string severityName(tk::Severity s) {
  return s == tk::Severity::Error ? "error" : s == tk::Severity::Warning ? "warning" : "note";
}

std::vector<Expectation> parseExpectations(const std::string &text) {
  static const std::regex re(R"(//\s*expect-(error|warning|note)@([+-]?)(\d+)(?::(\d+))?:\s?(.*)$)");
  std::vector<Expectation> out;
  std::istringstream in(text);
  std::string lineText;
  for (int line = 1; std::getline(in, lineText); ++line) {
    if (!lineText.empty() && lineText.back() == '\r') lineText.pop_back();
    std::smatch m;
    if (!std::regex_search(lineText, m, re)) continue;
    tk::Severity sev = m[1] == "error" ? tk::Severity::Error : m[1] == "warning" ? tk::Severity::Warning : tk::Severity::Note;
    int n = std::stoi(m[3]);
    int target = m[2] == "+" ? line + n : m[2] == "-" ? line - n : n;
    out.push_back({sev, target, m[4].matched ? std::stoi(m[4]) : 0, m[5], line});
  }
  return out;
}

int usage() {
  std::cerr << "usage: tk_check [--target=cpu|cuda|sunway] [-I DIR] [--stdlib DIR] [--schedule | --lower]\n"
               "                [--hole=ID=VALUE]... [--verify] FILE\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  tk::FrontendOptions opts;
  bool verify = false;
  enum class Stage { Frontend, Schedule, Lower } stage = Stage::Frontend;
  std::vector<std::pair<int, int64_t>> holes;
  std::string file;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--verify") verify = true;
    else if (a == "--schedule") stage = Stage::Schedule;
    else if (a == "--lower") stage = Stage::Lower;
    else if (a.rfind("--hole=", 0) == 0) {
      static const std::regex re(R"(--hole=(\d+)=(-?\d+))");
      std::smatch m;
      if (!std::regex_match(a, m, re)) return usage();
      holes.push_back({std::stoi(m[1]), std::stoll(m[2])});
    }
    else if (a.rfind("--target=", 0) == 0) {
      auto t = tk::ir::parseTargetFamily(a.substr(9));
      if (!t) return usage();
      opts.target = *t;
    } else if (a == "-I" && i + 1 < argc) opts.includeDirs.push_back(argv[++i]);
    else if (a == "--stdlib" && i + 1 < argc) opts.stdlibDir = argv[++i];
    else if (!a.empty() && a[0] != '-' && file.empty()) file = a;
    else return usage();
  }
  if (file.empty()) return usage();

  tk::SourceManager sm;
  tk::DiagEngine diags(sm);
  std::ostringstream captured;
  if (verify) diags.setStream(&captured);
  std::optional<tk::ir::Module> module;
  try {
    module = tk::buildModule(file, opts, sm, diags);
    if (module.has_value() == diags.hasErrors()) {
      std::cerr << "tk_check: buildModule "
                << (module ? "returned a module despite errors" : "failed without an error") << '\n';
      return 4;
    }
    if (module && stage != Stage::Frontend) {
      for (const tk::ir::KernelPtr &k : module->kernels)
        for (tk::ir::Hole &h : k->holes)
          for (const auto &[id, value] : holes)
            if (h.id == id) h.value = value;
      tk::PipelineOptions po;
      po.target.family = opts.target;
      size_t before = diags.errorCount();
      size_t produced = stage == Stage::Schedule ? tk::scheduleModule(*module, po, diags).size()
                                                 : tk::lowerModule(*module, po, diags).size();
      // Every export that did not make it through must have said why.
      if (diags.errorCount() == before && produced == 0 && !module->exports.empty()) {
        std::cerr << "tk_check: the scheduler dropped every export without an error\n";
        return 4;
      }
    }
  } catch (const tk::InternalError &e) {
    std::cerr << "tk_check: internal error: " << e.what() << '\n';
    return 4;
  }
  if (!verify) return diags.hasErrors() ? 1 : 0;

  std::vector<Expectation> expected = parseExpectations(sm.fileCount() ? sm.contents(0) : "");
  // Notes add detail (often machine-specific paths); they are checked only
  // in files that expect some.
  bool checkNotes = std::any_of(expected.begin(), expected.end(),
                                [](const Expectation &e) { return e.severity == tk::Severity::Note; });
  bool ok = true;
  for (const tk::Diagnostic &d : diags.all()) {
    if (d.severity == tk::Severity::Note && !checkNotes) continue;
    bool found = false;
    for (Expectation &e : expected) {
      if (e.matched || e.severity != d.severity || e.message != d.message) continue;
      if (d.loc.file != 0 || e.line != d.loc.line || (e.col && e.col != d.loc.col)) continue;
      e.matched = found = true;
      break;
    }
    if (!found) {
      ok = false;
      std::cerr << "unexpected diagnostic:\n" << diags.renderText(d);
    }
  }
  for (const Expectation &e : expected)
    if (!e.matched) {
      ok = false;
      std::cerr << file << ':' << e.commentLine << ": expected " << severityName(e.severity) << " at line " << e.line
                << (e.col ? fmt::format(", column {}", e.col) : "") << " not reported: " << e.message << '\n';
    }
  return ok ? 0 : 1;
}
