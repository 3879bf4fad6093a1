#!/usr/bin/env bash
# lesson_counters.sh RUN_LESSON: runs the GPU lesson on the PTX
# executor as a reader does (not --check) and checks that its explain
# report shows the counters the run recorded (TK_CUDA_EMU_STATS=FILE read
# back by tkc explain --counters) for both lesson kernels.
set -uo pipefail
RUN=$1
log=$(bash "$RUN" 10 33 17 65 2>&1) || { echo "$log"; echo "FAIL: run_lesson.sh 10 failed"; exit 1; }
report=$(echo "$log" | sed -n 's/^report: \(.*\) (open it in a browser)$/\1/p')
[ -f "$report" ] || { echo "$log"; echo "FAIL: no report"; exit 1; }
[ -s "$(dirname "$report")/counters.tsv" ] || { echo "FAIL: the run recorded no launch counters"; exit 1; }
for k in lesson10_shared_k0 lesson10_tc_k0; do
  grep -q "<td><code>$k</code></td><td class=\"num\">1</td>" "$report" ||
    { echo "FAIL: the report has no counters row for $k"; exit 1; }
done
echo "ok: $report"
