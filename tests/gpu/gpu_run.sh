#!/usr/bin/env bash
# gpu_run.sh TKC LIBTKRT_CUDA SOURCE_DIR CC [ARGS...]: runs kernels on device 0
# and compares them with a CPU reference (gpu_run.c; ARGS go to it, e.g.
# --no-huge-grid). Exits 77 (skipped) when there is no CUDA driver or device.
set -u
TKC=$1 RT=$2 SRC=$3 CC=$4
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
for f in std/elementwise std/nn std/linalg gpu/matmul_simt gpu/matmul_simt_large gpu/matmul_tc; do
  b=$(basename $f)
  "$TKC" "$SRC/stdlib/$f.tk" --target=cuda -o $b.o || exit 1
  "$TKC" "$SRC/stdlib/$f.tk" --target=cuda --emit=header -o $b.h || exit 1
done
"$TKC" "$SRC/tests/e2e/fusion.tk" --target=cuda -o fusion.o || exit 1
"$TKC" "$SRC/tests/e2e/fusion.tk" --target=cuda --emit=header -o fusion.h || exit 1
"$TKC" "$HERE/launch_limits.tk" --target=cuda -o launch_limits.o || exit 1
"$TKC" "$HERE/launch_limits.tk" --target=cuda --emit=header -o launch_limits.h || exit 1
"$CC" -O2 -Wall -I. -I"$SRC/backends/nvptx/runtime" \
  "$HERE/gpu_run.c" elementwise.o fusion.o nn.o linalg.o matmul_simt.o matmul_simt_large.o matmul_tc.o launch_limits.o "$RT" -ldl -lpthread -lm \
  -o run || exit 1
./run "${@:5}"
