#!/usr/bin/env bash
# bundle.sh BUILD_DIR OUT_DIR: packs the GPU checks into OUT_DIR so that they
# run on a machine with a CUDA driver but without LLVM, ANTLR or a compiler
# (a lent GPU machine, docs/testing.md "On a GPU"): the gpu_run.sh and
# ops_run.sh programs built here, tk_gpu_warp_run, tk_gpu_bench, the shared
# libraries they need
# beyond libc/libstdc++, the stdlib sources the warp test reads, and
# run_all.sh, which runs them in order and prints a summary.
set -eu
BUILD=$(cd "$1" && pwd)
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TKC=$BUILD/bin/tkc
cd "$OUT"
for f in std/elementwise std/nn std/linalg gpu/matmul_simt gpu/matmul_simt_large gpu/matmul_tc; do
  b=$(basename $f)
  "$TKC" "$SRC/stdlib/$f.tk" --target=cuda -o $b.o
  "$TKC" "$SRC/stdlib/$f.tk" --target=cuda --emit=header -o $b.h
done
"$TKC" "$SRC/tests/e2e/fusion.tk" --target=cuda -o fusion.o
"$TKC" "$SRC/tests/e2e/fusion.tk" --target=cuda --emit=header -o fusion.h
"$TKC" "$SRC/tests/gpu/launch_limits.tk" --target=cuda -o launch_limits.o
"$TKC" "$SRC/tests/gpu/launch_limits.tk" --target=cuda --emit=header -o launch_limits.h
cc -O2 -Wall -I. -I"$SRC/backends/nvptx/runtime" "$SRC/tests/gpu/gpu_run.c" \
  elementwise.o fusion.o nn.o linalg.o matmul_simt.o matmul_simt_large.o matmul_tc.o launch_limits.o \
  "$BUILD/lib/libtkrt_cuda.a" -ldl -lpthread -lm -o gpu_run
rm -f ./*.o ./*.h
# The custom-operator suite, CPU against cuda (ops_run.c).
bash "$SRC/tests/gpu/ops_run.sh" "$TKC" "$BUILD/lib/libtkrt_cuda.a" "$BUILD/lib/libtkrt.a" "$SRC" cc "$OUT" 2>/dev/null
mkdir -p lib
for exe in tk_gpu_warp_run tk_gpu_bench; do
  [ -x "$BUILD/bin/$exe" ] || { echo "bundle.sh: $BUILD/bin/$exe not built" >&2; exit 1; }
  cp "$BUILD/bin/$exe" .
  ldd "$BUILD/bin/$exe" | awk '/=> \//{print $3}' | grep -E 'antlr4|fmt|gmp' | xargs -r cp -t lib
done
mkdir -p src && cp -r "$SRC/stdlib" src/
cat > run_all.sh <<'RUN'
#!/usr/bin/env bash
# Runs the bundled GPU checks; prints one PASS/FAIL/SKIP line per check.
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -z "${TK_CUBLAS:-}" ]; then
  TK_CUBLAS=$(find / -xdev -name 'libcublas.so*' -type f 2>/dev/null | head -1); export TK_CUBLAS
fi
status=0
check() {
  name=$1; shift
  "$@"; rc=$?
  case $rc in 0) echo "== $name: PASS";; 77) echo "== $name: SKIP";; *) echo "== $name: FAIL ($rc)"; status=1;; esac
}
check "gpu run" ./gpu_run
check "warp shuffles and atomics" ./tk_gpu_warp_run src
check "custom operators, cpu against cuda" ./ops_run
# TK_SANITIZE=1: compute-sanitizer's memcheck, racecheck (shared-memory
# races between threads of a block) and synccheck on every kernel.
if [ "${TK_SANITIZE:-0}" = 1 ] && command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck synccheck; do
    check "gpu run, $tool" timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 ./gpu_run --no-huge-grid
    check "warp shuffles and atomics, $tool" timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 ./tk_gpu_warp_run src
    check "custom operators, $tool" timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 ./ops_run
  done
fi
[ "${TK_NO_BENCH:-0}" = 1 ] || check "tk_gpu_bench" ./tk_gpu_bench ${TK_BENCH_ARGS:-}
exit $status
RUN
chmod +x run_all.sh
