#!/usr/bin/env bash
# usage: cmake_languages_test.sh BUILD_DIR WORK_DIR CMAKE MAKE NINJA [MODE]
# MODE: tk_add_library (default), enable_language, or all.
# The installed CMake package (cmake --install into one temp prefix, found
# through CMAKE_PREFIX_PATH) in the projects users write: project(p C),
# project(p CXX) and project(p C CXX), each with the Makefile and the Ninja
# generator.  Each project builds a tk_add_library() of one tiny op and a
# program that calls it (from C, from C++, or both in the mixed project),
# and runs it.  tk_add_library() once hard-coded LINKER_LANGUAGE C, which a
# CXX-only project cannot archive with ("Missing variable is:
# CMAKE_C_ARCHIVE_CREATE").
# MODE enable_language: the same projects with enable_language(TK) and
# add_library(ops STATIC ops.tk) (tkc through CMake's compile rules), plus
# an executable with ops.tk in its own sources; ops.tk imports common.tk,
# and touching common.tk must rebuild the object (Ninja: the import is in
# .ninja_deps; Make: CMake's compiler-depends files), once.
set -euo pipefail
BUILD="$1" WORK="$2" CMAKE="$3" MAKE="$4" NINJA="$5" MODE="${6:-tk_add_library}"
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

# project_header NAME LANGS: the first lines of a consumer's CMakeLists.txt.
project_header() {
  echo "cmake_minimum_required(VERSION 3.20)"
  echo "project(p_$(echo "$1" | tr -c 'A-Za-z0-9\n' _) $2)"
  echo "find_package(tk REQUIRED)"
}

# configure SRC BIN GENERATOR MAKE_PROGRAM LABEL: configures a consumer
# against the installed package.
configure() {
  local src=$1 bin=$2 gen=$3 prog=$4 label=$5
  "$CMAKE" -S "$src" -B "$bin" -G "$gen" -DCMAKE_MAKE_PROGRAM="$prog" \
    -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release > "$bin.configure.log" 2>&1 \
    || { cat "$bin.configure.log"; echo "FAIL: configure $label" >&2; return 1; }
}

# build BIN LOG WHAT LABEL [ARGS...]: builds, the output in LOG.
build() {
  local bin=$1 log=$2 what=$3 label=$4; shift 4
  "$CMAKE" --build "$bin" "$@" > "$log" 2>&1 || { cat "$log"; echo "FAIL: $what $label" >&2; return 1; }
}

run_case() { # GEN_TAG GENERATOR MAKE_PROGRAM LANGS...
  local tag="$1" gen="$2" prog="$3"; shift 3
  local langs="$*"
  local name="${tag}-${langs// /-}"
  local src="$WORK/$name/src" bin="$WORK/$name/build"
  mkdir -p "$src"
  cp "$WORK/src/ops.tk" "$WORK/src/main.c" "$WORK/src/main.cpp" "$src/"
  {
    project_header "$name" "$langs"
    echo "tk_add_library(ops SOURCES ops.tk)"
    for l in $langs; do
      local f=main.c; [ "$l" = CXX ] && f=main.cpp
      echo "add_executable(app_$l $f)"
      echo "target_link_libraries(app_$l PRIVATE ops)"
    done
  } > "$src/CMakeLists.txt"
  echo "== $gen: project(... $langs)"
  configure "$src" "$bin" "$gen" "$prog" "($gen, $langs)" || return 1
  # The package must be the installed one, not a build tree elsewhere.
  grep -q "^tk_DIR:PATH=$PREFIX/" "$bin/CMakeCache.txt" \
    || { grep '^tk_DIR' "$bin/CMakeCache.txt"; echo "FAIL: tk not found in $PREFIX" >&2; return 1; }
  build "$bin" "$bin.build.log" build "($gen, $langs)" || return 1
  for l in $langs; do
    "$bin/app_$l" || { echo "FAIL: app_$l ($gen, $langs)" >&2; return 1; }
  done
}

# --- enable_language(TK): .tk files as ordinary CMake sources.
cat > "$WORK/src/common.tk" <<'TK'
op twice(X: f32[N]) -> Y: f32[N] {
  Y[i] = X[i] * 2.0;
}
TK
printf 'import "common.tk";\n' | cat - "$WORK/src/ops.tk" > "$WORK/src/ops_imp.tk"
# Prototypes by hand: the TK language writes no header (docs/build-integration.md).
sed -e 's|#include "ops.h"|#include <stdint.h>\nint axpb(const float *X, float *Y, int64_t N);\n#define TK_STATUS_OK 0|' \
  "$WORK/src/main.c" > "$WORK/src/lang_main.c"
sed -e 's|#include "ops.h"|#include <cstdint>\nextern "C" int axpb(const float *X, float *Y, int64_t N);\n#define TK_STATUS_OK 0|' \
  "$WORK/src/main.cpp" > "$WORK/src/lang_main.cpp"

run_lang_case() { # GEN_TAG GENERATOR MAKE_PROGRAM LANGS...
  local tag="$1" gen="$2" prog="$3"; shift 3
  local langs="$*"
  local name="lang-${tag}-${langs// /-}"
  local src="$WORK/$name/src" bin="$WORK/$name/build"
  mkdir -p "$src"
  cp "$WORK/src/common.tk" "$WORK/src/lang_main.c" "$WORK/src/lang_main.cpp" "$src/"
  cp "$WORK/src/ops_imp.tk" "$src/ops.tk"
  {
    project_header "$name" "$langs"
    echo "enable_language(TK)"
    echo "add_library(ops STATIC ops.tk)"
    echo "target_link_libraries(ops PUBLIC tk::tkrt)"
    for l in $langs; do
      local f=lang_main.c; [ "$l" = CXX ] && f=lang_main.cpp
      echo "add_executable(app_$l $f)"
      echo "target_link_libraries(app_$l PRIVATE ops)"
      echo "add_executable(appsrc_$l $f ops.tk)"
      echo "target_link_libraries(appsrc_$l PRIVATE tk::tkrt)"
    done
  } > "$src/CMakeLists.txt"
  echo "== $gen: project(... $langs) + enable_language(TK)"
  local fail="($gen, $langs, enable_language)"
  configure "$src" "$bin" "$gen" "$prog" "$fail" || return 1
  grep -q "^CMAKE_TK_COMPILER:FILEPATH=$PREFIX/bin/tkc$" "$bin/CMakeCache.txt" \
    || { grep '^CMAKE_TK_COMPILER' "$bin/CMakeCache.txt"; echo "FAIL: tkc not from $PREFIX $fail" >&2; return 1; }
  build "$bin" "$bin.build.log" build "$fail" -v || return 1
  # tkc ran as the compile rule (-O3 from CMAKE_TK_FLAGS_RELEASE, gcc depfile).
  grep -q "bin/tkc .*-O3.* -MD -MT .*ops\.tk\.o -MF .*ops\.tk\.o\.d" "$bin.build.log" \
    || { cat "$bin.build.log"; echo "FAIL: no tkc compile rule in the log $fail" >&2; return 1; }
  for l in $langs; do
    "$bin/app_$l" && "$bin/appsrc_$l" || { echo "FAIL: app_$l/appsrc_$l $fail" >&2; return 1; }
  done
  local obj=CMakeFiles/ops.dir/ops.tk.o
  if [ "$tag" = ninja ]; then
    "$prog" -C "$bin" -t deps "$obj" > "$bin.deps.log"
    grep -q "$src/common.tk" "$bin.deps.log" \
      || { cat "$bin.deps.log"; echo "FAIL: ninja -t deps lacks common.tk $fail" >&2; return 1; }
  fi
  touch "$src/common.tk"
  if [ "$tag" = ninja ]; then
    "$prog" -C "$bin" -n -d explain > "$bin.explain.log" 2>&1
    grep -q "ops\.tk\.o older than most recent input $src/common.tk" "$bin.explain.log" \
      || { cat "$bin.explain.log"; echo "FAIL: touching common.tk does not dirty ops.tk.o $fail" >&2; return 1; }
  fi
  build "$bin" "$bin.rebuild.log" rebuild "$fail" || return 1
  grep -q "Building TK object $obj" "$bin.rebuild.log" \
    || { cat "$bin.rebuild.log"; echo "FAIL: touching common.tk did not rebuild $obj $fail" >&2; return 1; }
  # Up to date afterwards (tkc may leave unchanged bytes; the rule touches).
  "$CMAKE" --build "$bin" > "$bin.again.log" 2>&1
  if grep -q "Building TK object" "$bin.again.log"; then
    cat "$bin.again.log"; echo "FAIL: a TK object is rebuilt with nothing changed $fail" >&2; return 1
  fi
}

if [ "$MODE" = tk_add_library ] || [ "$MODE" = all ]; then
  for langs in "C" "CXX" "C CXX"; do
    run_case make "Unix Makefiles" "$MAKE" $langs
    run_case ninja Ninja "$NINJA" $langs
  done
fi
if [ "$MODE" = enable_language ] || [ "$MODE" = all ]; then
  for langs in "C" "CXX" "C CXX"; do
    run_lang_case make "Unix Makefiles" "$MAKE" $langs
    run_lang_case ninja Ninja "$NINJA" $langs
  done
fi
echo "PASS"
