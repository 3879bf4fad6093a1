#!/usr/bin/env bash
# usage: cuda_package_test.sh SRC_DIR BUILD_DIR WORK_DIR CMAKE NINJA
# tk_add_library(... TARGET cuda|cuda-sm_80) in a user's project
# (cuda-project/: two ops, a C program that allocates device memory with
# the tkrt_cuda API, calls them, copies back and checks), its own tests run
# on tk's PTX executor through ENVIRONMENT TK_CUDA_DRIVER=${TK_CUDA_EMU_DRIVER}.
# Once against the build tree's package (tk_DIR=BUILD_DIR), once against
# the installed one (cmake --install into WORK_DIR/prefix, found through
# CMAKE_PREFIX_PATH): tk::tkrt_cuda, tk::cuda_emu and TK_CUDA_EMU_DRIVER
# point into that tree, the programs pass, and a second build does nothing.
# Then tk_add_library's errors: an unknown cuda target, and a package
# without tk::tkrt_cuda (tk built without the NVPTX backend).
set -euo pipefail
SRC="$1" BUILD="$2" WORK="$3" CMAKE="$4" NINJA="$5"
PROJ="$SRC/tests/integration/cuda-project"
CTEST="$(dirname "$CMAKE")/ctest"
[ -x "$CTEST" ] || CTEST=ctest
rm -rf "$WORK" && mkdir -p "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }

# run_project TAG TREE DRIVER_WANT CMAKE_ARGS...: configure, build, ctest.
run_project() {
  local tag=$1 tree=$2 want=$3; shift 3
  local bin="$WORK/$tag"
  echo "== $tag: tk package from $tree"
  "$CMAKE" -S "$PROJ" -B "$bin" -G Ninja -DCMAKE_MAKE_PROGRAM="$NINJA" \
    -DCMAKE_BUILD_TYPE=Release "$@" > "$bin.configure.log" 2>&1 \
    || { cat "$bin.configure.log"; fail "configure ($tag)"; }
  grep -Eq "^tk_DIR:(PATH|UNINITIALIZED)=$tree" "$bin/CMakeCache.txt" \
    || { grep '^tk_DIR' "$bin/CMakeCache.txt"; fail "tk not found in $tree ($tag)"; }
  grep -qx -- "-- TK_CUDA_EMU_DRIVER=$want" "$bin.configure.log" \
    || { grep TK_CUDA_EMU_DRIVER "$bin.configure.log"; fail "TK_CUDA_EMU_DRIVER is not $want ($tag)"; }
  [ -f "$want" ] || fail "$want does not exist ($tag)"
  "$CMAKE" --build "$bin" -v > "$bin.build.log" 2>&1 || { cat "$bin.build.log"; fail "build ($tag)"; }
  # tkc ran for the cuda targets, and the programs link this tree's
  # libtkrt_cuda.a (not libtkrt.a) and, for vadd_stats, its executor.
  grep -q "tkc .*vadd\.tk -o .*--target=cuda -O3" "$bin.build.log" \
    && grep -q "tkc .*scale\.tk -o .*--target=cuda-sm_80 -O2" "$bin.build.log" \
    || { cat "$bin.build.log"; fail "no tkc --target=cuda / cuda-sm_80 compile ($tag)"; }
  grep -q -- "-o vadd .*$tree.*/libtkrt_cuda\.a" "$bin.build.log" \
    && grep -q -- "-o vadd_stats .*$tree.*/cuda-emu/libcuda\.so\.1" "$bin.build.log" \
    || { cat "$bin.build.log"; fail "vadd/vadd_stats not linked with $tree's libtkrt_cuda.a / libcuda.so.1 ($tag)"; }
  if grep -q "libtkrt\.a" "$bin.build.log"; then
    cat "$bin.build.log"; fail "a cuda library links libtkrt.a ($tag)"
  fi
  "$CTEST" --test-dir "$bin" --output-on-failure -V > "$bin.ctest.log" 2>&1 \
    || { cat "$bin.ctest.log"; fail "the project's tests on the executor ($tag)"; }
  grep -q "TK_CUDA_DRIVER=$want" "$bin.ctest.log" && grep -q "executor: last kernel" "$bin.ctest.log" \
    || { cat "$bin.ctest.log"; fail "tests did not run with TK_CUDA_DRIVER=$want ($tag)"; }
  grep -E "executor:|: ok|tests passed" "$bin.ctest.log" || true
  # Without the executor the program reaches no driver (so it ran on it above).
  local out
  out="$(TK_CUDA_DRIVER=/nonexistent/libcuda.so.1 "$bin/vadd" 2>&1)" && fail "vadd passed with no driver ($tag)"
  echo "$out" | grep -q "status 4" || { echo "$out"; fail "vadd with no driver: not status 4 ($tag)"; }
  out="$("$CMAKE" --build "$bin")"
  echo "$out" | grep -q "no work to do" || { echo "$out"; fail "second build was not a no-op ($tag)"; }
}

run_project build-tree "$BUILD" "$BUILD/lib/cuda-emu/libcuda.so.1" -Dtk_DIR="$BUILD"

PREFIX="$WORK/prefix"
"$CMAKE" --install "$BUILD" --prefix "$PREFIX" > "$WORK/install.log" 2>&1 \
  || { cat "$WORK/install.log"; fail "cmake --install"; }
emu="$(find "$PREFIX" -path '*/tk/cuda-emu/libcuda.so.1')"
[ -n "$emu" ] || fail "no <prefix>/<libdir>/tk/cuda-emu/libcuda.so.1 installed"
run_project install-tree "$PREFIX/" "$emu" -DCMAKE_PREFIX_PATH="$PREFIX"

# --- errors at configure time
# expect_error TAG MESSAGE: configures $WORK/TAG/src, which must fail with it.
expect_error() {
  local tag=$1 msg=$2 src="$WORK/$1/src"
  if "$CMAKE" -S "$src" -B "$WORK/$tag/build" -G Ninja -DCMAKE_MAKE_PROGRAM="$NINJA" \
      -Dtk_DIR="$BUILD" > "$WORK/$tag.log" 2>&1; then
    cat "$WORK/$tag.log"; fail "configure succeeded ($tag)"
  fi
  # CMake wraps the message's lines: compare with the whitespace folded.
  tr -s ' \n' '  ' < "$WORK/$tag.log" | grep -qF -- "$msg" || { cat "$WORK/$tag.log"; fail "no '$msg' ($tag)"; }
  echo "== $tag: error as expected"
}
mkdir -p "$WORK/bad-target/src" "$WORK/no-tkrt-cuda/src"
cp "$PROJ/vadd.tk" "$WORK/bad-target/src/"
cat > "$WORK/bad-target/src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(bad_target C)
find_package(tk REQUIRED)
tk_add_library(ops SOURCES vadd.tk TARGET cuda-sm_70)
CM
expect_error bad-target "unknown cuda target 'cuda-sm_70' (cuda, cuda-sm_80, cuda-sm_90 or cuda-sm_90a)"
# A package of a tk without the NVPTX backend: tk::tkc and tk::tkrt only.
cp "$PROJ/vadd.tk" "$WORK/no-tkrt-cuda/src/"
cat > "$WORK/no-tkrt-cuda/src/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(no_tkrt_cuda C)
add_executable(tk::tkc IMPORTED)
set_target_properties(tk::tkc PROPERTIES IMPORTED_LOCATION "$BUILD/bin/tkc")
add_library(tk::tkrt STATIC IMPORTED)
set_target_properties(tk::tkrt PROPERTIES IMPORTED_LOCATION "$BUILD/lib/libtkrt.a")
include("$SRC/cmake/TkAddLibrary.cmake")
tk_add_library(ops SOURCES vadd.tk TARGET cuda)
CM
expect_error no-tkrt-cuda "TARGET cuda needs tk::tkrt_cuda (libtkrt_cuda.a), which this tk package does not have"
echo "PASS"
