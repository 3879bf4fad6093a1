#!/usr/bin/env bash
# ops_run.sh TKC LIBTKRT_CUDA LIBTKRT SOURCE_DIR CC [OUT]: builds ops_run.c
# against the custom-operator suite compiled for the CPU (symbols renamed
# cpu_<op>) and for cuda, then runs it (exit 77: no CUDA driver or device).
# With OUT, only builds the program there (tests/gpu/bundle.sh).
set -u
abs() { realpath -m "$1"; }
TKC=$(abs "$1") RT=$(abs "$2") RTCPU=$(abs "$3") SRC=$(abs "$4") CC=$5 OUT=${6:+$(abs "$6")}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
OPS=$SRC/bench/ops/custom_ops.tk
# (The cuda compile warns about fusions that only the CPU's row fusion makes good.)
"$TKC" "$OPS" --hw=zen5-2c -o ops_cpu.o || exit 1
"$TKC" "$OPS" --hw=zen5-2c --emit=header -o ops_cpu.h || exit 1
"$TKC" "$OPS" --target=cuda -o ops_cuda.o || exit 1
"$TKC" "$OPS" --target=cuda --emit=header -o ops_cuda.h || exit 1
# The CPU build's functions as cpu_<op>, in the object and its header.
nm ops_cpu.o | awk '$2 == "T" { print $3, "cpu_" $3 }' > rename.txt
objcopy --redefine-syms=rename.txt ops_cpu.o || exit 1
sed -i -e 's/^int \([A-Za-z_0-9]*\)(/int cpu_\1(/' -e 's/TK_OPS_CPU_H/TK_OPS_CPU_RENAMED_H/g' ops_cpu.h
"$CC" -O2 -Wall -I. -I"$SRC/backends/nvptx/runtime" "$HERE/ops_run.c" ops_cpu.o ops_cuda.o "$RT" "$RTCPU" \
  -ldl -lpthread -lm -o ops_run || exit 1
if [ -n "$OUT" ]; then cp ops_run "$OUT/"; exit 0; fi
./ops_run
