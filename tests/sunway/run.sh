#!/usr/bin/env bash
# run.sh WRAPPER SRCDIR WORKDIR NAME [args...]: builds NAME_host.c and
# NAME_slave.c the way a Sunway Makefile would (-host, -slave, -hybrid) with
# tk-sw5cc, then runs the program with the arguments.
#   EXPECT_FAIL=REGEX  the run must fail and its stderr must match REGEX.
set -eu
wrapper=$1 src=$2 work=$3 name=$4
shift 4
mkdir -p "$work"
cd "$work"
"$wrapper" -host -O2 -std=c99 -I "$src" -c "$src/${name}_host.c" -o "${name}_host.o"
"$wrapper" -slave -O2 -std=c99 -I"$src" -c "$src/${name}_slave.c" -o "${name}_slave.o"
"$wrapper" -hybrid "${name}_host.o" "${name}_slave.o" -o "$name" -lm
if [ -n "${EXPECT_FAIL:-}" ]; then
  set +e
  "./$name" "$@" 2>stderr.txt
  rc=$?
  set -e
  cat stderr.txt >&2
  if [ $rc -eq 0 ]; then echo "FAIL: $name succeeded, expected a failure" >&2; exit 1; fi
  if ! grep -Eq "$EXPECT_FAIL" stderr.txt; then echo "FAIL: stderr does not match /$EXPECT_FAIL/" >&2; exit 1; fi
  echo "failed as expected (exit $rc)"
else
  "./$name" "$@"
fi
