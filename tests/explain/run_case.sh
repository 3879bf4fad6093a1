#!/usr/bin/env bash
# One `tkc explain` case: writes the report, checks the exit status, that
# the page needs nothing outside itself, that it is valid HTML
# (html-validate), and that it works in headless Chromium (check_report.js:
# no console errors, the expected elements, hover and links; a screenshot
# beside the report for a look).
#   run_case.sh TKC OUTDIR NAME STATUS TKC-ARGS... -- SELECTOR=MIN...
# Needs NODE_PATH (tests/npm's packages); exits 77 (skip) with the reason
# when they or Chromium are missing.
set -uo pipefail
TKC="$1" OUTDIR="$2" NAME="$3" STATUS="$4"
shift 4
args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
[ $# -gt 0 ] && shift
mkdir -p "$OUTDIR"
report="$OUTDIR/$NAME.html"
rm -f "$report"
"$TKC" explain "${args[@]}" -o "$report" 2>"$OUTDIR/$NAME.stderr"
rc=$?
fail() { echo "FAIL: $*"; exit 1; }
[ "$rc" = "$STATUS" ] || { cat "$OUTDIR/$NAME.stderr"; fail "tkc explain exited $rc, expected $STATUS"; }
[ -s "$report" ] || fail "no report written"
# Self-contained: no script, style, image, font or link fetched from elsewhere.
if grep -qE '(src|href)="(https?:)?//|@import|url\(' "$report"; then
  fail "the report refers to something outside itself: $(grep -oE '(src|href)="(https?:)?//[^"]*|@import|url\(' "$report" | head -3)"
fi
if [ -n "${TK_NPM_DIR:-}" ] && [ -f "$TK_NPM_DIR/unavailable" ]; then
  echo "SKIP: browser checks: $(cat "$TK_NPM_DIR/unavailable")"; exit 77
fi
validator="${TK_NPM_DIR:-}/node_modules/.bin/html-validate"
[ -x "$validator" ] || fail "html-validate is not installed in ${TK_NPM_DIR:-<TK_NPM_DIR unset>}"
"$validator" "$report" || fail "the report is not valid HTML"
node "$(dirname "${BASH_SOURCE[0]}")/check_report.js" "$report" "$OUTDIR/$NAME.png" "$@"
