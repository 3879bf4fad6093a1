#!/usr/bin/env bash
# usage: run_cmake_project.sh SRC_DIR BUILD_DIR WORK_DIR CMAKE NINJA
# Configures examples/cmake-project with find_package(tk) against BUILD_DIR,
# builds it with Ninja and runs the app.
set -euo pipefail
SRC="$1" BUILD="$2" WORK="$3" CMAKE="$4" NINJA="$5"
rm -rf "$WORK"
"$CMAKE" -S "$SRC/examples/cmake-project" -B "$WORK" -G Ninja \
  -DCMAKE_MAKE_PROGRAM="$NINJA" -Dtk_DIR="$BUILD" -DCMAKE_BUILD_TYPE=Release
"$CMAKE" --build "$WORK"
"$WORK/app"
out="$("$CMAKE" --build "$WORK")"
echo "$out"
echo "$out" | grep -q "no work to do" || { echo "FAIL: second build was not a no-op" >&2; exit 1; }
echo "PASS"
