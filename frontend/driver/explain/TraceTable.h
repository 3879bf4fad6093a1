// The construction optimizer's trace (`--construct-trace`, docs/construct.md)
// as navigable HTML for `tkc explain`: one collapsible row per step of the
// Markov traversal with its candidate actions, benefits and probabilities
// and the action taken, and top_results as a table.
#pragma once
#include <string>

namespace tk::explain {

// Lines the trace format does not define are kept as preformatted text, so
// nothing the optimizer printed is lost.
std::string traceHtml(const std::string &trace);

} // namespace tk::explain
