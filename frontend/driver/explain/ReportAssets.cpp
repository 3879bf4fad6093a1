#include "frontend/driver/explain/ReportAssets.h"

namespace tk::explain {

const char *const kReportStyle = R"css(
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1400px; padding: 0 1.5em 3em; color: #1d1d1f; }
h1 { font-size: 1.6em; margin: 1em 0 .2em; } h2 { margin-top: 2em; border-bottom: 2px solid #ddd; } h3 { margin: 1.4em 0 .4em; }
code, pre, .code { font: 13px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
pre { background: #f6f6f8; padding: .6em .8em; overflow: auto; border-radius: 4px; }
pre.kernel, pre.hot-loop { max-height: 26em; }
h2 code { font-size: 1em; }
nav ul { columns: 3; } table { border-collapse: collapse; } td, th { padding: .15em .7em; border-bottom: 1px solid #e4e4e8; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.diag-error { color: #b00020; } .diag-warning { color: #8a5a00; } .diag-note { color: #555; }
.panes { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.4fr); gap: 1em; }
.pane { max-height: 34em; overflow: auto; background: #f6f6f8; border-radius: 4px; padding: .4em 0; }
.line { display: block; white-space: pre; padding: 0 .8em; cursor: pointer; }
.line .no { display: inline-block; width: 3.5em; color: #999; user-select: none; }
.line .at { float: right; color: #999; font-size: 11px; }
.line.linked { background: #fff2b3; } .line:hover { background: #e9eefc; } .line.unlinked { cursor: default; }
.mapping { margin: .6em 0 1em; padding-left: .8em; border-left: 3px solid #cdd5ea; }
.depth-1 { margin-left: 2.2em; } .depth-2 { margin-left: 4.4em; } .depth-3 { margin-left: 6.6em; }
.depth-4 { margin-left: 8.8em; } .depth-5 { margin-left: 11em; }
.mapping .note, .hover { color: #555; font-size: 13px; } .hover { min-height: 1.4em; font-family: ui-monospace, monospace; }
svg.grid rect { stroke: #fff; stroke-width: .5; } svg.grid rect:hover { stroke: #000; stroke-width: 2; }
svg.grid text { font: 10px sans-serif; text-anchor: middle; pointer-events: none; fill: #222; }
svg.grid line.factor { stroke: #222; stroke-width: 2; }
svg.banks rect { stroke: #fff; stroke-width: .5; } svg.banks text { font: 10px sans-serif; text-anchor: middle; pointer-events: none; }
.bank-access { margin: .4em 0 .4em 1em; }
svg.roofline .roof { fill: none; stroke: #1d4ed8; stroke-width: 2.5; } svg.roofline .tick { stroke: #e2e2e6; }
svg.roofline text { font: 11px sans-serif; text-anchor: middle; fill: #444; } svg.roofline text.y { text-anchor: end; }
svg.roofline .op-modelled { fill: #f59e0b; } svg.roofline .op-measured { fill: #16a34a; }
.trace details { margin: .15em 0; } .trace summary { cursor: pointer; font-family: ui-monospace, monospace; font-size: 13px; }
.trace tr.chosen td { font-weight: 600; background: #eaf7ea; }
.kind { display: inline-block; padding: 0 .5em; border-radius: 3px; background: #e9eefc; font-size: 13px; }
)css";

const char *const kReportScript = R"js(
'use strict';
// Hover on a task grid: say which worker runs the task and when.
for (const svg of document.querySelectorAll('svg.grid')) {
  const out = svg.closest('.mapping').querySelector('.hover');
  svg.addEventListener('mouseover', (ev) => {
    const r = ev.target.closest('rect');
    if (!r || !out) return;
    out.textContent = 'task (' + r.dataset.task + ') -> ' + svg.dataset.worker + ' ' + r.dataset.worker +
                      ', step ' + r.dataset.step;
  });
}
// Links between a source pane and the loop IR beside it, both ways.
function mark(lines) {
  for (const el of document.querySelectorAll('.line.linked')) el.classList.remove('linked');
  for (const el of lines) el.classList.add('linked');
  if (lines.length) lines[0].scrollIntoView({block: 'nearest'});
}
for (const panes of document.querySelectorAll('.panes')) {
  panes.addEventListener('click', (ev) => {
    const line = ev.target.closest('.line');
    if (!line) return;
    if (line.dataset.src) {
      mark([...panes.querySelectorAll('.src .line[data-line="' + line.dataset.src + '"]'), line]);
    } else if (line.dataset.line) {
      mark([line, ...panes.querySelectorAll('.ir .line[data-src="' + line.dataset.line + '"]')]);
    }
  });
}
)js";

} // namespace tk::explain
