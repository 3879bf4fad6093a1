#!/usr/bin/env bash
# build_stdlib.sh TKC SW5CC STDLIB WORKDIR TARGET: compiles every stdlib
# file for TARGET and builds its sources with the Makefile at -O2 -Wall
# -Wextra -Werror against the emulator (the difftests build theirs at -O0,
# where gcc's flow-based warnings do not run).
set -eu
tkc=$1 sw5cc=$2 stdlib=$3 work=$4 target=$5
rm -rf "$work"
for f in "$stdlib"/std/*.tk; do
  out="$work/$(basename "$f" .tk)"
  "$tkc" --target="$target" "$f" -o "$out/"
  make -s -C "$out" TK_EMULATE=1 TK_SW5CC="$sw5cc" TK_SWGCC="$(dirname "$sw5cc")/tk-swgcc" \
    CFLAGS="-O2 -Wall -Wextra -Werror"
  echo "ok: $(basename "$f") for $target"
done
