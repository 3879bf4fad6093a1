#!/usr/bin/env bash
# The run-time mapping sanitizer (tkc --check-mappings, docs/driver.md) on
# check_mappings.tk: compiles it with the flag, links a C driver against
# libtkrt and checks each kernel's status and stderr report.
#   check_mappings.sh TKC LIBDIR WORKDIR
set -euo pipefail
tkc=$1 libdir=$2 work=$3
src=$(cd "$(dirname "$0")" && pwd)/check_mappings.tk
mkdir -p "$work" && cd "$work"
# The static checks warn about what they cannot decide and compile it.
"$tkc" --check-mappings "$src" -o km.o 2> warnings.txt
grep -q "warning: cannot prove that the mapping writes every element of Z" warnings.txt
"$tkc" --emit=header "$src" -o km.h
cat > main.c <<'C'
#include <stdio.h>
#include <string.h>
#include "km.h"
int main(int argc, char **argv) {
  float x[4] = {1, -1, 2, -3}, z[4];
  int32_t idx[4] = {0, 0, 2, 3};
  int s = -1;
  if (!strcmp(argv[1], "positive_only")) s = positive_only(x, z, 4);
  if (!strcmp(argv[1], "both_branches")) s = both_branches(x, z, 4);
  if (!strcmp(argv[1], "scattered")) s = scattered(x, idx, z, 4);
  printf("status %d\n", s);
  return 0;
}
C
cc -O1 -o main main.c km.o -L "$libdir" -ltkrt -lpthread -lm
fail=0
expect() { # KERNEL STATUS [STDERR-LINE...]
  local k=$1 status=$2
  shift 2
  ./main "$k" > out.txt 2> err.txt
  if ! grep -qx "status $status" out.txt; then
    echo "FAIL $k: expected status $status, got: $(cat out.txt)"; cat err.txt; fail=1
  fi
  for line in "$@"; do
    if ! grep -qxF "$line" err.txt; then echo "FAIL $k: missing stderr line: $line"; cat err.txt; fail=1; fi
  done
  [ $# -gt 0 ] || [ ! -s err.txt ] || { echo "FAIL $k: unexpected stderr"; cat err.txt; fail=1; }
}
expect positive_only 8 \
  "tk: --check-mappings: Z[1] is never written" \
  "tk: --check-mappings: Z[3] is never written" \
  "tk: --check-mappings: 2 of 4 elements of Z are never written (2) or written by two workers at once (0)"
expect both_branches 0
expect scattered 8 \
  "tk: --check-mappings: Z[0] is written by workers 0 and 1 of one parallel loop" \
  "tk: --check-mappings: Z[1] is never written" \
  "tk: --check-mappings: 2 of 4 elements of Z are never written (1) or written by two workers at once (1)"
exit $fail
