#!/usr/bin/env bash
# build_and_run.sh TKC SW5CC SRCDIR WORKDIR TARGET: compiles dma.tk for
# TARGET into WORKDIR/out/, builds it with its Makefile and TK_EMULATE=1
# (C99, -Wall -Wextra -Werror, plus $EXTRA_CFLAGS), links dma_main.c with
# the library and -lpthread -lm alone, and runs it. $TKC_FLAGS: more tkc
# options (one word each).
set -eu
tkc=$1 sw5cc=$2 src=$3 work=$4 target=$5
rm -rf "$work"
mkdir -p "$work"
# shellcheck disable=SC2086 # one option per word
"$tkc" --target="$target" ${TKC_FLAGS:-} "$src/dma.tk" -o "$work/out/"
for f in dma.host.c dma.slave.c dma.params.h dma.h Makefile; do
  [ -f "$work/out/$f" ] || { echo "FAIL: $f not written" >&2; exit 1; }
done
# tk-swgcc (the Pro's stand-in) lies next to tk-sw5cc.
make -s -C "$work/out" TK_EMULATE=1 TK_SW5CC="$sw5cc" TK_SWGCC="$(dirname "$sw5cc")/tk-swgcc" \
  CFLAGS="-O2 -Wall -Wextra -Werror ${EXTRA_CFLAGS:-}"
# The emulator's headers (tk_athread_stats.h) from the source tree.
cc -std=c99 -O2 -I "$work/out" -I "$src/../../../backends/sunway/emulator" "$src/dma_main.c" \
  "$work/out/libdma.a" -lpthread -lm -o "$work/dma_main"
"$work/dma_main"
