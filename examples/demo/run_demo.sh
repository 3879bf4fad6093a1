#!/usr/bin/env bash
# Compiles examples/matmul.tk with build/bin/tkc, links it with demo.c and
# libtkrt.a, and runs it (arguments are passed on: M K N [M K N ...]).
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
SRC="$ROOT/examples/matmul.tk"
if stale "$OUT/matmul.o" "$SRC" "$TKC" || stale "$OUT/matmul.h" "$SRC" "$TKC"; then
  echo "+ tkc examples/matmul.tk -> $OUT/matmul.o, matmul.h"
  "$TKC" "$SRC" -o "$OUT/matmul.o" --target=host -O3
  "$TKC" "$SRC" --emit=header -o "$OUT/matmul.h" --target=host
fi
if stale "$OUT/demo" "$OUT/matmul.o" "$OUT/matmul.h" "$ROOT/examples/demo/demo.c" "$BUILD/lib/libtkrt.a"; then
  echo "+ cc demo.c matmul.o -ltkrt -> $OUT/demo"
  "$CC" -O2 -std=c11 -I"$OUT" "$ROOT/examples/demo/demo.c" "$OUT/matmul.o" \
    -L"$BUILD/lib" -ltkrt -lpthread -lm -o "$OUT/demo"
fi
echo "+ $OUT/demo $*"
exec "$OUT/demo" "$@"
