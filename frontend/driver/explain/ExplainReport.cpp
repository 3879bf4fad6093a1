#include "frontend/driver/explain/ExplainReport.h"

#include "frontend/driver/explain/HtmlText.h"
#include "frontend/driver/explain/ReportAssets.h"
#include "frontend/driver/explain/TraceTable.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace tk::explain {

namespace {

std::string where(const SourceManager &sm, SourceLoc loc) {
  if (!loc.valid()) return "";
  return fmt::format("{}:{}", std::filesystem::path(sm.path(loc.file)).filename().string(), loc.line);
}

const char *severityName(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "note";
}

std::string diagnosticsHtml(const ReportInput &in, const DiagEngine &diags) {
  if (in.diagnostics.empty()) return "<p>None: the file compiled without errors or warnings.</p>";
  std::string out = "<ul class=\"diagnostics\">";
  for (const Diagnostic &d : in.diagnostics)
    out += fmt::format("<li class=\"diag-{}\"><pre>{}</pre></li>", severityName(d.severity),
                       escapeHtml(diags.renderText(d)));
  return out + "</ul>";
}

std::string statementsHtml(const ExportReport &e, const SourceManager &sm) {
  std::string out = "<table class=\"fusion\"><thead><tr><th>statement</th><th>where</th><th>outcome</th></tr></thead><tbody>";
  for (const StatementFate &s : e.statements)
    out += fmt::format("<tr{}><td><code>{}</code></td><td>{}</td><td>{}</td></tr>", s.refused ? " class=\"refused\"" : "",
                       escapeHtml(s.text), escapeHtml(where(sm, s.loc)), escapeHtml(s.outcome));
  return out + "</tbody></table>";
}

std::string picturesHtml(const ExportReport &e, const SourceManager &sm) {
  if (e.pictures.empty())
    return "<p>No task-mapping loop of this kernel is bound to workers: one worker runs it all.</p>";
  std::string out;
  for (const MappingPicture &p : e.pictures) {
    out += fmt::format("<div class=\"mapping depth-{}\"><code>{}</code> <span class=\"note\">({}) {}</span>",
                       std::min(p.depth, 5), escapeHtml(p.header), escapeHtml(where(sm, p.loc)), escapeHtml(p.note));
    if (!p.svg.empty()) out += "<div>" + p.svg + "</div><div class=\"hover\">hover a task to see its worker</div>";
    for (const BankAccess &b : p.banks)
      out += fmt::format("<div class=\"bank-access\"><code>{}</code> <span class=\"note\">({}) first warp: {}</span>"
                         "<div>{}</div></div>",
                         escapeHtml(b.text), escapeHtml(where(sm, b.loc)),
                         b.ways <= 1 ? std::string("no bank conflict")
                                     : fmt::format("{}-way bank conflict ({} transactions where 1 would do)", b.ways, b.ways),
                         b.svg);
    out += "</div>";
  }
  return out;
}

std::string panesHtml(const ExportReport &e, const SourceManager &sm) {
  std::string out = "<div class=\"panes\"><div class=\"pane src code\">";
  if (e.sourceFile >= 0) {
    std::istringstream in(sm.contents(e.sourceFile));
    int n = 0;
    for (std::string l; std::getline(in, l);)
      out += fmt::format("<span class=\"line\" data-line=\"{0}\"><span class=\"no\">{0}</span>{1}</span>", ++n,
                         escapeHtml(l));
  }
  out += "</div><div class=\"pane ir code\">";
  if (e.loopText.empty()) out += "<span class=\"line unlinked\">(not lowered: the compile stopped before this export)</span>";
  std::istringstream in(e.loopText);
  size_t n = 0;
  for (std::string l; std::getline(in, l); ++n) {
    SourceLoc loc = n < e.loopLocs.size() ? e.loopLocs[n] : SourceLoc{};
    bool linked = loc.valid() && loc.file == e.sourceFile;
    out += fmt::format("<span class=\"line{}\"{}><span class=\"no\">{}</span>{}<span class=\"at\">{}</span></span>",
                       loc.valid() ? "" : " unlinked", linked ? fmt::format(" data-src=\"{}\"", loc.line) : "", n + 1,
                       escapeHtml(l), escapeHtml(where(sm, loc)));
  }
  return out + "</div></div>";
}

std::string rooflineHtml(const ExportReport &e) {
  std::string out = rooflineSvg(e.roofs, e.work, e.measuredSeconds ? std::optional(e.work.ops / *e.measuredSeconds * 1e-9)
                                                                   : std::nullopt);
  out += "<table class=\"roof-figures\"><tbody>";
  auto row = [&](const std::string &k, const std::string &v) {
    out += fmt::format("<tr><th>{}</th><td class=\"num\">{}</td></tr>", k, v);
  };
  if (!e.work.unknown.empty()) {
    row("work", "not computed: no value for " + escapeHtml(e.work.unknown));
  } else {
    row("operations per call", fmt::format("{:.4g}", e.work.ops));
    row("compulsory traffic", fmt::format("{:.4g} bytes", e.work.bytes));
    row("arithmetic intensity", fmt::format("{:.3g} op/byte", e.work.intensity()));
    row("machine peak", fmt::format("{:.4g} G op/s ({})", e.roofs.peakGops, ir::scalarTypeName(e.dtype)));
    row("main-memory bandwidth", fmt::format("{:.4g} GB/s", e.roofs.bandwidthGBs));
    row("ridge point", fmt::format("{:.3g} op/byte", e.roofs.ridge()));
    double bound = e.roofs.attainable(e.work.intensity());
    row("roofline bound", fmt::format("{:.4g} G op/s ({}-bound)", bound,
                                      e.work.intensity() < e.roofs.ridge() ? "memory" : "compute"));
    if (e.measuredSeconds)
      row("measured", fmt::format("{:.4g} G op/s ({:.3g} ms per call, {:.0f}% of the bound)",
                                  e.work.ops / *e.measuredSeconds * 1e-9, *e.measuredSeconds * 1e3,
                                  100 * e.work.ops / *e.measuredSeconds * 1e-9 / bound));
  }
  if (!e.measureNote.empty()) row("measured", escapeHtml(e.measureNote));
  return out + "</tbody></table>";
}

std::string ldmHtml(const ExportReport &e, const SourceManager &sm) {
  const LdmReport &l = *e.ldm;
  std::string out = fmt::format("<h3>LDM and DMA (Sunway)</h3><p>LDM buffers of a CPE: {} bytes of {} ({:.0f}%).</p>",
                                l.bufferBytes, e.ldmCapacity,
                                e.ldmCapacity > 0 ? 100.0 * static_cast<double>(l.bufferBytes) / e.ldmCapacity : 0.0);
  out += "<table class=\"ldm\"><thead><tr><th>buffer</th><th>type</th><th class=\"num\">bytes</th><th>where</th>"
         "</tr></thead><tbody>";
  for (const LdmBuffer &b : l.buffers)
    out += fmt::format("<tr><td><code>{}</code></td><td><code>{}</code></td><td class=\"num\">{}</td><td>{}</td></tr>",
                       escapeHtml(b.name), escapeHtml(b.type), b.bytes, escapeHtml(where(sm, b.loc)));
  out += "</tbody></table>";
  if (l.dmas.empty()) return out + "<p>No DMA: this function reads and writes main memory directly.</p>";
  out += "<table class=\"dma\"><thead><tr><th>transfer</th><th class=\"num\">times</th><th class=\"num\">bytes</th>"
         "<th class=\"num\">bytes per transfer</th><th>where</th></tr></thead><tbody>";
  for (const DmaStatement &d : l.dmas)
    out += fmt::format("<tr><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                       "<td class=\"num\">{}</td><td>{}</td></tr>",
                       escapeHtml(d.text), l.notCounted.empty() ? std::to_string(d.count) : "",
                       l.notCounted.empty() ? std::to_string(d.bytes) : "",
                       l.notCounted.empty() && d.count ? fmt::format("{:.0f}", double(d.bytes) / d.count) : "",
                       escapeHtml(where(sm, d.loc)));
  out += "</tbody></table>";
  if (!l.notCounted.empty()) out += "<p>" + escapeHtml(l.notCounted) + "</p>";
  else out += "<p>Counts are over all 64 CPEs of a core group for one call at the report's sizes.</p>";
  if (l.model) {
    const SpawnModel &m = *l.model;
    out += fmt::format("<p class=\"spawn-model\">Modelled time of one call (the Sunway performance model over these "
                       "transfers and the op's operations, spread evenly over the CPEs; asynchronous transfers "
                       "overlap the arithmetic): <b>{:.4g} &micro;s</b>; the transfers alone {:.4g} &micro;s, the "
                       "arithmetic alone {:.4g} &micro;s: {}.</p>",
                       m.seconds * 1e6, m.dmaSeconds * 1e6, m.computeSeconds * 1e6,
                       m.dmaSeconds >= m.computeSeconds ? "bound by DMA" : "bound by the arithmetic");
  }
  return out;
}

std::string countersHtml(const ExportReport &e, const std::string &file) {
  std::string out = fmt::format("<h3>Measured on the PTX executor</h3><p>Counters of the launches recorded in "
                                "<code>{}</code> (<code>TK_CUDA_EMU_STATS</code>), summed over launches.",
                                escapeHtml(file));
  if (e.counters->empty()) return out + " None of this export's kernels was launched in that run.</p>";
  out += " Load and store efficiency: bytes the lanes asked for over the bytes of the 32-byte sectors moved (1 = "
         "coalesced); shared passes: wavefronts over the conflict-free count (1 = no bank conflicts).</p>"
         "<table class=\"counters\"><thead><tr><th>kernel</th><th class=\"num\">launches</th><th>grid / block</th>"
         "<th class=\"num\">warp instructions</th><th class=\"num\">load sectors</th><th class=\"num\">load eff.</th>"
         "<th class=\"num\">store eff.</th><th class=\"num\">shared passes</th><th class=\"num\">mma</th>"
         "<th class=\"num\">divergent branches</th><th>occupancy</th></tr></thead><tbody>";
  for (const KernelCounters &k : *e.counters)
    out += fmt::format("<tr><td><code>{}</code></td><td class=\"num\">{}</td><td>({}) / ({})</td>"
                       "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.2f}</td>"
                       "<td class=\"num\">{:.2f}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                       "<td class=\"num\">{} of {}</td><td>{:.0f}% theoretical ({}, {} registers), {:.0f}% achieved</td></tr>",
                       escapeHtml(k.kernel), k.launches, escapeHtml(k.grid), escapeHtml(k.block), k.warpInstructions,
                       k.globalLoadSectors, k.loadEfficiency(), k.storeEfficiency(),
                       k.sharedRequests ? fmt::format("&times;{:.2f} (worst {}-way)", k.sharedConflictFactor(),
                                                      k.sharedMaxWays)
                                        : std::string("&ndash;"),
                       k.mma, k.divergentBranches, k.branches, 100 * k.theoreticalOccupancy,
                       escapeHtml(k.occupancyLimit.empty() ? "?" : "limit: " + k.occupancyLimit), k.registersPerThread,
                       100 * k.achievedOccupancy);
  return out + "</tbody></table>";
}

std::string exportHtml(const ExportReport &e, const SourceManager &sm, const ReportInput &in) {
  std::string steps;
  for (const std::string &s : e.kernelSteps) steps += (steps.empty() ? "" : " &rarr; ") + escapeHtml(s);
  std::string out = fmt::format("<section class=\"export\" id=\"export-{0}\"><h2><code>{0}</code></h2>", escapeHtml(e.symbol));
  out += fmt::format("<table class=\"summary\"><tbody><tr><th>op</th><td><code>{}</code></td></tr>"
                     "<tr><th>kernel</th><td><span class=\"kind\">{}</span> <code>{}</code></td></tr>"
                     "<tr><th>scheduler steps</th><td>{}</td></tr></tbody></table>",
                     escapeHtml(e.opName), escapeHtml(e.kernelKind), escapeHtml(e.kernelName), steps);
  out += "<h3>The kernel, as .tk you can edit</h3><p>Paste it into a file that defines or imports the op and "
         "compile it: it gives the same code (<code>tkc --emit=kernel</code>).</p>";
  if (e.kernelSource.empty()) out += "<p class=\"note\">None: the compile stopped before this export was scheduled.</p>";
  else out += fmt::format("<pre class=\"kernel\">{}</pre>", escapeHtml(e.kernelSource));
  out += "<h3>Fusion</h3>" + statementsHtml(e, sm);
  out += "<h3>Who computes what</h3><p>Each task-mapping loop bound to workers, as its grid of tasks coloured by "
         "worker; thick lines separate the tiles of the outer factor of a composed mapping.</p>" +
         picturesHtml(e, sm);
  out += "<h3>Lowered loops</h3><p>Click a line on either side to see its partners.</p>" + panesHtml(e, sm);
  if (!e.codeKind.empty()) {
    out += fmt::format("<h3>Hot loop ({})</h3>", escapeHtml(e.codeKind));
    if (e.hotLoop)
      out += fmt::format("<p>Innermost loop of <code>{}</code> with the most arithmetic ({} instructions), from line {}.</p>"
                         "<pre class=\"hot-loop\">{}</pre>",
                         escapeHtml(e.hotLoop->function), e.hotLoop->arithmetic, e.hotLoop->firstLine,
                         escapeHtml(e.hotLoop->text));
    else out += "<p>The generated code of this export has no loop.</p>";
  }
  if (e.ldm) out += ldmHtml(e, sm);
  if (e.counters) out += countersHtml(e, in.countersFile);
  out += "<h3>Roofline</h3>" + rooflineHtml(e);
  return out + "</section>";
}

} // namespace

std::string renderReport(const ReportInput &in, const SourceManager &sm, const DiagEngine &diags) {
  std::string sizes;
  for (const auto &[name, v] : in.sizes) sizes += fmt::format("{}{} = {}", sizes.empty() ? "" : ", ", name, v);
  std::string title = "tkc explain: " + std::filesystem::path(in.inputName).filename().string();
  std::string out = fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>"
                                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                                "<style>{}</style></head><body><h1>{}</h1>",
                                escapeHtml(title), kReportStyle, escapeHtml(title));
  out += fmt::format("<p>Target <code>{}</code>, hardware <code>{}</code>. Pictures and the roofline use {}.</p>",
                     escapeHtml(in.target), escapeHtml(in.hardware),
                     sizes.empty() ? "no sizes (the ops have none)" : escapeHtml(sizes));
  out += "<nav><ul>";
  for (const ExportReport &e : in.exports)
    out += fmt::format("<li><a href=\"#export-{0}\">{0}</a></li>", escapeHtml(e.symbol));
  if (!in.constructTrace.empty()) out += "<li><a href=\"#construction\">construction</a></li>";
  out += "</ul></nav><h2>Diagnostics</h2>" + diagnosticsHtml(in, diags);
  for (const ExportReport &e : in.exports) out += exportHtml(e, sm, in);
  if (!in.constructTrace.empty())
    out += "<section id=\"construction\" class=\"trace\"><h2>Construction</h2><p>The construction optimizer's path "
           "(its first chain) and the ranked top_results; open a step to see every action it weighed.</p>" +
           traceHtml(in.constructTrace) + "</section>";
  out += fmt::format("<script>{}</script></body></html>\n", kReportScript);
  return out;
}

} // namespace tk::explain
