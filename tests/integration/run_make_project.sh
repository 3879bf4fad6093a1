#!/usr/bin/env bash
# usage: run_make_project.sh SRC_DIR BUILD_DIR WORK_DIR [MAKE]
# Builds examples/make-project out of tree (OUT=WORK_DIR) and runs it; then
# checks that a second `make` does nothing.
set -euo pipefail
SRC="$1" BUILD="$2" WORK="$3" MAKE="${4:-make}"
# Do not inherit jobserver fds / command-line variables of an outer make.
unset MAKEFLAGS MFLAGS MAKELEVEL
rm -rf "$WORK" && mkdir -p "$WORK"
"$MAKE" -C "$SRC/examples/make-project" TK_BUILD="$BUILD" OUT="$WORK" run
out="$("$MAKE" -C "$SRC/examples/make-project" TK_BUILD="$BUILD" OUT="$WORK" all)"
echo "$out"
if ! echo "$out" | grep -q "Nothing to be done"; then
  echo "FAIL: second make rebuilt something" >&2
  exit 1
fi
echo "PASS"
