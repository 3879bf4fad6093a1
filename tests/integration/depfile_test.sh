#!/usr/bin/env bash
# usage: depfile_test.sh ninja|cmake BUILD_DIR WORK_DIR CMAKE NINJA
# Generates a project whose main.tk imports lib/scale.tk, builds it, checks a
# no-op rebuild, edits the imported file and checks that main.o (only) is
# rebuilt thanks to tkc's depfile (-MD -MF -MT), then checks a no-op again;
# finally edits only a comment (object bytes unchanged) and checks that the
# build settles (no-op afterwards).
#   ninja: a hand-written build.ninja (rule with depfile, deps = gcc, restat = 1)
#   cmake: a CMake project using find_package(tk) + tk_add_library
set -euo pipefail
MODE="$1" BUILD="$2" WORK="$3" CMAKE="$4" NINJA="$5"
TKC="$BUILD/bin/tkc"
rm -rf "$WORK" && mkdir -p "$WORK/src/lib"
cd "$WORK"

cat > src/lib/scale.tk <<'TK'
// imported by main.tk
op scale2(X: f32[N]) -> Y: f32[N] {
  Y[i] = X[i] * 2.0;
}
TK
cat > src/main.tk <<'TK'
import "lib/scale.tk";
export scale2;

op addone(X: f32[N]) -> Y: f32[N] {
  Y[i] = X[i] + 1.0;
}
TK

if [ "$MODE" = ninja ]; then
  BDIR="$WORK/out"
  mkdir -p "$BDIR"
  cat > "$BDIR/build.ninja" <<NINJA
rule tkc
  command = $TKC \$in -o \$out -MD -MF \$out.d -MT \$out
  depfile = \$out.d
  deps = gcc
  restat = 1
  description = TKC \$out
build main.o: tkc $WORK/src/main.tk
NINJA
  build() { "$NINJA" -C "$BDIR" -d explain "$@" 2>&1; }
  OBJ="$BDIR/main.o"
else
  cat > src/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.25)
project(depfile_test C)
find_package(tk REQUIRED)
tk_add_library(ops SOURCES main.tk)
CM
  BDIR="$WORK/out"
  "$CMAKE" -S src -B "$BDIR" -G Ninja -DCMAKE_MAKE_PROGRAM="$NINJA" -Dtk_DIR="$BUILD"
  build() { "$CMAKE" --build "$BDIR" -- -d explain 2>&1; }
  OBJ="$BDIR/ops.tk/obj/main.o"
fi

echo "== first build"
build
[ -f "$OBJ" ] || { echo "FAIL: $OBJ not built" >&2; exit 1; }

echo "== no-op build"
out="$(build)"; echo "$out"
echo "$out" | grep -q "no work to do" || { echo "FAIL: no-op build did work" >&2; exit 1; }

echo "== edit imported file (changes the generated code)"
# tkc leaves an output whose bytes did not change untouched (restat-friendly),
# so the edit must change the code: compare object contents, not mtimes.
before="$(cksum < "$OBJ")"
sleep 1
sed -i 's/X\[i\] \* 2\.0/X[i] * 3.0/' src/lib/scale.tk
grep -q '3\.0' src/lib/scale.tk || { echo "FAIL: test could not edit scale.tk" >&2; exit 1; }
out="$(build)"; echo "$out"
after="$(cksum < "$OBJ")"
[ "$before" != "$after" ] || { echo "FAIL: main.o not rebuilt after editing the imported file" >&2; exit 1; }

echo "== no-op build again"
out="$(build)"; echo "$out"
echo "$out" | grep -q "no work to do" || { echo "FAIL: second no-op build did work" >&2; exit 1; }
echo "== comment-only edit, then no-op"
sleep 1
echo "// a comment" >> src/lib/scale.tk
build
out="$(build)"; echo "$out"
echo "$out" | grep -q "no work to do" || { echo "FAIL: build does not settle after a comment-only edit" >&2; exit 1; }
echo "PASS"
