#!/usr/bin/env bash
# The `make demo` script: compiles a matmul twice with build/bin/tkc -- the
# op with no kernel (tkc's automatic schedule, matmul_auto.tk) and the
# hand-written kernel matmul_tiled (examples/matmul.tk) -- links both with
# demo.c, libtkrt.a and oneDNN, and runs it: correctness and GFLOP/s of
# each next to oneDNN (arguments are passed on: M K N [M K N ...]). Then it
# writes `tkc explain`'s report of the automatic schedule.
#   BUILD_DIR  build tree holding bin/tkc and lib/libtkrt.a (default: build)
#   CC         C compiler (default: cc)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build}"
CC="${CC:-cc}"
TKC="$BUILD/bin/tkc"
OUT="$BUILD/examples-demo"
mkdir -p "$OUT"

[ -x "$TKC" ] || { echo "run_demo.sh: $TKC not found (build the compiler first)" >&2; exit 1; }
[ -f "$BUILD/lib/libtkrt.a" ] || { echo "run_demo.sh: $BUILD/lib/libtkrt.a not found" >&2; exit 1; }

# Recompile only when an input is newer than what was built before.
stale() { # stale OUTPUT INPUT...
  local out="$1"; shift
  [ -e "$out" ] || return 0
  local f; for f in "$@"; do [ "$f" -nt "$out" ] && return 0; done
  return 1
}
HAND="$ROOT/examples/matmul.tk"
AUTO="$ROOT/examples/demo/matmul_auto.tk"
if stale "$OUT/matmul.o" "$HAND" "$TKC" || stale "$OUT/matmul.h" "$HAND" "$TKC"; then
  echo "+ tkc examples/matmul.tk (hand kernels) -> $OUT/matmul.o, matmul.h"
  "$TKC" "$HAND" -o "$OUT/matmul.o" --header="$OUT/matmul.h" --target=host -O3
  touch "$OUT/matmul.o" "$OUT/matmul.h" # tkc leaves unchanged outputs' times alone
fi
if stale "$OUT/auto.o" "$AUTO" "$TKC" || stale "$OUT/auto.h" "$AUTO" "$TKC"; then
  echo "+ tkc examples/demo/matmul_auto.tk (no kernel: automatic schedule) -> $OUT/auto.o, auto.h"
  "$TKC" "$AUTO" -o "$OUT/auto.o" --header="$OUT/auto.h" --target=host -O3
  touch "$OUT/auto.o" "$OUT/auto.h"
fi
TUT="$ROOT/examples/tutorial"
if stale "$OUT/demo" "$OUT/matmul.o" "$OUT/auto.o" "$ROOT/examples/demo/demo.c" "$TUT/tutorial.h" "$TUT/matmul_common.h" "$BUILD/lib/libtkrt.a"; then
  echo "+ cc demo.c matmul.o auto.o -ltkrt -ldnnl -> $OUT/demo"
  "$CC" -O2 -std=c11 -Wall -Wextra -I"$OUT" -I"$TUT" "$ROOT/examples/demo/demo.c" "$OUT/matmul.o" "$OUT/auto.o" \
    -L"$BUILD/lib" -ltkrt -ldnnl -lpthread -lm -o "$OUT/demo"
fi
# oneDNN's OpenMP threads otherwise spin after each call and take the cores
# from the tkc function timed next (bench/ does the same).
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
echo "+ $OUT/demo $*"
status=0
"$OUT/demo" "$@" || status=$?

# The report is extra: if it cannot be written, say so and keep the
# demo's own result.
REPORT="$OUT/matmul-report.html"
echo "+ tkc explain examples/demo/matmul_auto.tk -o $REPORT --target=host"
if "$TKC" explain "$AUTO" -o "$REPORT" --target=host; then
  echo "report: $REPORT (open it in a browser)"
else
  echo "run_demo.sh: error: tkc explain failed (exit $?): no report" >&2
fi
exit "$status"
