#include "frontend/driver/explain/TraceTable.h"

#include "frontend/driver/explain/HtmlText.h"

#include <fmt/format.h>

#include <optional>
#include <sstream>
#include <vector>

namespace tk::explain {

namespace {


struct Choice {
  std::string action, benefit, prob;
};

// One step: `step N  state S`, its choices (`    ACTION benefit B p P`) and
// the pick (`  -> ACTION[  (kept in top_results)]`).
struct Step {
  std::string head, picked;
  bool kept = false;
  std::vector<Choice> choices;
};

std::optional<Choice> parseChoice(const std::string &line) {
  std::istringstream in(line);
  Choice c;
  std::string w1, w2;
  if (!(in >> c.action >> w1 >> c.benefit >> w2 >> c.prob) || w1 != "benefit" || w2 != "p") return std::nullopt;
  return c;
}

class Renderer {
public:
  std::string out;

  void line(const std::string &l) {
    if (l.starts_with("step ")) {
      flushStep();
      closeTop();
      step_ = Step{l, "", false, {}};
      return;
    }
    if (step_ && l.starts_with("    ")) {
      if (auto c = parseChoice(l)) return step_->choices.push_back(*c);
    }
    if (step_ && l.starts_with("  -> ")) {
      std::string rest = l.substr(5);
      size_t kept = rest.find("  (kept in top_results)");
      step_->kept = kept != std::string::npos;
      step_->picked = rest.substr(0, kept);
      return flushStep();
    }
    flushStep();
    if (l.starts_with("top_results")) {
      inTop_ = true;
      out += fmt::format("<h4>{}</h4><table class=\"top\"><thead><tr><th>#</th><th>state</th><th class=\"num\">estimate</th></tr></thead><tbody>",
                         escapeHtml(l));
      return;
    }
    if (inTop_ && l.starts_with("  ")) {
      size_t dot = l.find(". "), est = l.rfind("  est ");
      if (dot != std::string::npos && est != std::string::npos && est > dot) {
        out += fmt::format("<tr><td>{}</td><td><code>{}</code></td><td class=\"num\">{}</td></tr>",
                           escapeHtml(l.substr(2, dot - 2)), escapeHtml(l.substr(dot + 2, est - dot - 2)),
                           escapeHtml(l.substr(est + 6)));
        return;
      }
    }
    closeTop();
    if (l.starts_with("// construct ")) out += fmt::format("<h4>{}</h4>", escapeHtml(l.substr(3)));
    else out += fmt::format("<pre class=\"trace-line\">{}</pre>", escapeHtml(l));
  }

  void finish() {
    flushStep();
    closeTop();
  }

private:
  void flushStep() {
    if (!step_) return;
    const Step &s = *step_;
    out += fmt::format("<details class=\"step\"><summary>{} &rarr; {}{}</summary>", escapeHtml(s.head),
                       s.picked.empty() ? "no action fits: stop" : escapeHtml(s.picked),
                       s.kept ? " (kept in top_results)" : "");
    out += "<table><thead><tr><th>action</th><th class=\"num\">benefit</th><th class=\"num\">probability</th></tr></thead><tbody>";
    for (const Choice &c : s.choices)
      out += fmt::format("<tr{}><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                         c.action == s.picked ? " class=\"chosen\"" : "", escapeHtml(c.action), escapeHtml(c.benefit),
                         escapeHtml(c.prob));
    out += "</tbody></table></details>";
    step_.reset();
  }
  void closeTop() {
    if (inTop_) out += "</tbody></table>";
    inTop_ = false;
  }

  std::optional<Step> step_;
  bool inTop_ = false;
};

} // namespace

std::string traceHtml(const std::string &trace) {
  Renderer r;
  std::istringstream in(trace);
  for (std::string l; std::getline(in, l);) r.line(l);
  r.finish();
  return r.out;
}

} // namespace tk::explain
