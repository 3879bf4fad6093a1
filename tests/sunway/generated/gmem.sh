#!/usr/bin/env bash
# gmem.sh TKC SW5CC SRCDIR WORKDIR: gmem.tk's matmul compiled with the
# untiled default schedule keeps the reduction's target in main memory, so
# its CPE code declares direct main-memory accesses (TK_GMEM); with
# TK_ATHREAD_GMEM=error the emulator must abort and name them, while the
# tiled default compile runs clean under the same setting.
set -eu
tkc=$1 sw5cc=$2 src=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
build() { # build DIR FLAGS...: compiles gmem.tk into DIR and links gmem_main
  local dir=$1
  shift
  "$tkc" --target=sunway "$@" "$src/gmem.tk" -o "$dir/"
  make -s -C "$dir" TK_EMULATE=1 TK_SW5CC="$sw5cc" CFLAGS="-O2 -Wall -Wextra -Werror"
  cc -std=c99 -O2 -I "$dir" "$src/gmem_main.c" "$dir/libgmem.a" -lpthread -lm -o "$dir/gmem_main"
}
build "$work/tiled"
build "$work/untiled" --schedule=default
TK_ATHREAD_GMEM=error "$work/tiled/gmem_main"
set +e
TK_ATHREAD_GMEM=error "$work/untiled/gmem_main" 2>"$work/stderr.txt"
rc=$?
set -e
cat "$work/stderr.txt" >&2
if [ $rc -eq 0 ]; then echo "FAIL: the untiled matmul ran with TK_ATHREAD_GMEM=error" >&2; exit 1; fi
grep -Eq "direct main-memory accesses \(Gload/Gstore" "$work/stderr.txt" || { echo "FAIL: no Gload/Gstore report" >&2; exit 1; }
echo "direct main-memory accesses reported as errors; the tiled code has none"
