// The style sheet and script of the `tkc explain` report, inlined into every
// report so that it works from file:// with no network.
#pragma once

namespace tk::explain {

extern const char *const kReportStyle;  // CSS
extern const char *const kReportScript; // JavaScript: hover on task grids, links between source and loops

} // namespace tk::explain
