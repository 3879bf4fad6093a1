#!/usr/bin/env bash
# run_golden.sh TKC SRCDIR WORKDIR NAME: compiles SRCDIR/NAME.tk for
# --target=sunway into WORKDIR and compares NAME.slave.c and NAME.host.c with
# SRCDIR/NAME.<file>.expected byte for byte. UPDATE_GOLDEN=1 rewrites the
# expectations instead (review the diff before committing).
set -eu
tkc=$1 src=$2 work=$3 name=$4
rm -rf "$work"
"$tkc" --target=sunway "$src/$name.tk" -o "$work/"
status=0
for f in slave.c host.c; do
  want="$src/$name.$f.expected"
  if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
    cp "$work/$name.$f" "$want"
    echo "updated $want"
  elif ! diff -u "$want" "$work/$name.$f"; then
    echo "FAIL: $name.$f differs from $want" >&2
    status=1
  fi
done
exit $status
