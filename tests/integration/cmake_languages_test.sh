#!/usr/bin/env bash
# usage: cmake_languages_test.sh BUILD_DIR WORK_DIR CMAKE MAKE NINJA
# The installed CMake package (cmake --install into one temp prefix, found
# through CMAKE_PREFIX_PATH) in the projects users write: project(p C),
# project(p CXX) and project(p C CXX), each with the Makefile and the Ninja
# generator.  Each project builds a tk_add_library() of one tiny op and a
# program that calls it (from C, from C++, or both in the mixed project),
# and runs it.  tk_add_library() once hard-coded LINKER_LANGUAGE C, which a
# CXX-only project cannot archive with ("Missing variable is:
# CMAKE_C_ARCHIVE_CREATE").
set -euo pipefail
BUILD="$1" WORK="$2" CMAKE="$3" MAKE="$4" NINJA="$5"
rm -rf "$WORK" && mkdir -p "$WORK/src"
PREFIX="$WORK/prefix"
"$CMAKE" --install "$BUILD" --prefix "$PREFIX" > "$WORK/install.log"

cat > "$WORK/src/ops.tk" <<'TK'
op axpb(X: f32[N]) -> Y: f32[N] {
  Y[i] = X[i] * 2.0 + 1.0;
}
TK
# The same check in C and in C++ (the header has extern "C" guards).
cat > "$WORK/src/main.c" <<'C'
#include "ops.h"
#include <stdio.h>
int main(void) {
  float x[5] = {0, 1, 2, 3, -4}, y[5] = {0};
  int st = axpb(x, y, 5);
  for (int i = 0; i < 5; ++i)
    if (st != TK_STATUS_OK || y[i] != x[i] * 2.0f + 1.0f) { printf("FAIL c: status %d, y[%d] = %g\n", st, i, y[i]); return 1; }
  printf("c ok\n");
  return 0;
}
C
cat > "$WORK/src/main.cpp" <<'CXX'
#include "ops.h"
#include <cstdio>
#include <vector>
int main() {
  std::vector<float> x{0, 1, 2, 3, -4}, y(x.size());
  int st = axpb(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i)
    if (st != TK_STATUS_OK || y[i] != x[i] * 2.0f + 1.0f) { std::printf("FAIL cxx: status %d, y[%zu] = %g\n", st, i, y[i]); return 1; }
  std::printf("cxx ok\n");
  return 0;
}
CXX

run_case() { # GEN_TAG GENERATOR MAKE_PROGRAM LANGS...
  local tag="$1" gen="$2" prog="$3"; shift 3
  local langs="$*"
  local name="${tag}-${langs// /-}"
  local src="$WORK/$name/src" bin="$WORK/$name/build"
  mkdir -p "$src"
  cp "$WORK/src/ops.tk" "$WORK/src/main.c" "$WORK/src/main.cpp" "$src/"
  {
    echo "cmake_minimum_required(VERSION 3.20)"
    echo "project(p_$(echo "$name" | tr -c 'A-Za-z0-9\n' _) $langs)"
    echo "find_package(tk REQUIRED)"
    echo "tk_add_library(ops SOURCES ops.tk)"
    for l in $langs; do
      local f=main.c; [ "$l" = CXX ] && f=main.cpp
      echo "add_executable(app_$l $f)"
      echo "target_link_libraries(app_$l PRIVATE ops)"
    done
  } > "$src/CMakeLists.txt"
  echo "== $gen: project(... $langs)"
  "$CMAKE" -S "$src" -B "$bin" -G "$gen" -DCMAKE_MAKE_PROGRAM="$prog" \
    -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release > "$bin.configure.log" 2>&1 \
    || { cat "$bin.configure.log"; echo "FAIL: configure ($gen, $langs)" >&2; return 1; }
  # The package must be the installed one, not a build tree elsewhere.
  grep -q "^tk_DIR:PATH=$PREFIX/" "$bin/CMakeCache.txt" \
    || { grep '^tk_DIR' "$bin/CMakeCache.txt"; echo "FAIL: tk not found in $PREFIX" >&2; return 1; }
  "$CMAKE" --build "$bin" > "$bin.build.log" 2>&1 \
    || { cat "$bin.build.log"; echo "FAIL: build ($gen, $langs)" >&2; return 1; }
  for l in $langs; do
    "$bin/app_$l" || { echo "FAIL: app_$l ($gen, $langs)" >&2; return 1; }
  done
}

for langs in "C" "CXX" "C CXX"; do
  run_case make "Unix Makefiles" "$MAKE" $langs
  run_case ninja Ninja "$NINJA" $langs
done
echo "PASS"
