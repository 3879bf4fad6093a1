#!/usr/bin/env bash
# tkc driven as a build system drives a compiler (docs/driver.md, "In a
# build"): Ninja and Make in a temporary directory, gcc's dependency flags,
# stream inputs, traces, interrupts, one run with several outputs.
# Usage: build_tool.sh CASE TKC STDLIB
set -u
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
CASE=$1 TKC=$2 STDLIB=$3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1


cat > common.tk <<'TK'
op addone(X: f32[N]) -> Y: f32[N] { Y[i] = X[i] + 1.0; }
TK
cat > m.tk <<'TK'
import "common.tk";
export addone;
op matmul(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] {
  C[i, j] = sum(k) A[i, k] * B[k, j];
}
TK
cp "$STDLIB/targets/zen5-2c.hw" my.hw
printf 'tkc-tuning-records 1\n' > recs.tkr

case $CASE in
depfile_inputs)
  # Every file that changes the object is in the depfile: editing the
  # hardware description or the tuning records makes Ninja rebuild.
  cat > build.ninja <<NINJA
rule tkc
  command = "$TKC" \$in -o \$out --hw=my.hw --tuning-records=recs.tkr -MD -MF \$out.d
  depfile = \$out.d
  deps = gcc
build m.o: tkc m.tk
NINJA
  ninja >/dev/null 2>err.txt || { cat err.txt; fail "first build"; }
  ninja -t deps m.o | grep -q 'my.hw' || fail "my.hw not in the recorded deps: $(ninja -t deps m.o)"
  ninja -t deps m.o | grep -q 'recs.tkr' || fail "recs.tkr not in the recorded deps"
  ninja -t deps m.o | grep -q 'common.tk' || fail "import not in the recorded deps"
  ninja -n | grep -q 'no work to do' || fail "not up to date after the build"
  for f in my.hw recs.tkr common.tk; do
    touch -d '+5 seconds' "$f"
    ninja -d explain -n 2>&1 | grep -q "older than most recent input $f" || fail "editing $f did not make m.o dirty"
    ninja >/dev/null 2>&1 || fail "rebuild after $f"
  done
  ;;
fixed_target)
  # A named target without --hw uses its own description, not the host's.
  expect_rc 0 "$TKC" --print-hw --target=x86_64-avx2
  grep -q '^name = x86_64-avx2$' out.txt || fail "--print-hw --target=x86_64-avx2: $(head -3 out.txt)"
  expect_rc 0 "$TKC" m.tk --target=x86_64-avx2 --emit=mapping -o a.map
  expect_rc 0 "$TKC" m.tk --target=x86_64-avx2 --hw="$STDLIB/targets/x86_64-avx2.hw" --emit=mapping -o b.map
  cmp -s a.map b.map || fail "--target=x86_64-avx2 does not use targets/x86_64-avx2.hw"
  expect_rc 0 "$TKC" --print-hw --target=host
  grep -q '^name = host$' out.txt || fail "--target=host probes the machine"
  ;;
dep_flags)
  # Repeated -MT and -MQ, like gcc.
  expect_rc 0 "$TKC" m.tk -o x.o --hw=zen5-2c -MD -MF x.d -MT 'a.o' -MT 'b $x.o' -MQ 'c $x.o'
  [ "$(head -n1 x.d)" = 'a.o b $x.o c\ $$x.o: \' ] || fail "-MT/-MQ targets: $(head -n1 x.d)"
  # -M prints the dependencies and compiles nothing; -MM leaves out the stdlib.
  expect_rc 0 "$TKC" -M m.tk --hw=zen5-2c
  [ "$(head -n1 out.txt)" = 'm.o: \' ] || fail "-M target: $(cat out.txt)"
  grep -q 'zen5-2c.hw' out.txt || fail "-M misses the hardware file"
  [ ! -e m.o ] || fail "-M compiled"
  expect_rc 0 "$TKC" -MM m.tk --hw=zen5-2c -MF mm.d
  grep -q 'zen5-2c.hw' mm.d && fail "-MM lists a stdlib file: $(cat mm.d)"
  grep -q 'common.tk' mm.d || fail "-MM misses the import"
  expect_rc 0 "$TKC" m.tk -o y.o --hw=zen5-2c -MMD
  grep -q 'zen5-2c.hw' y.d && fail "-MMD lists a stdlib file"
  [ -s y.o ] || fail "-MMD did not compile"
  expect_rc 2 "$TKC" -M -MD m.tk
  # -MP: make survives a deleted import.
  cat > Makefile <<MAKE
m.o: m.tk
	"$TKC" m.tk -o m.o --hw=my.hw -MD -MP
-include m.d
MAKE
  make -s >/dev/null 2>err.txt || { cat err.txt; fail "first make"; }
  grep -q '^common.tk:$' m.d || fail "-MP: no phony rule for the import: $(cat m.d)"
  grep -q '^m.tk:$' m.d && fail "-MP: a phony rule for the input"
  printf 'op matmul(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] { C[i, j] = sum(k) A[i, k] * B[k, j]; }\n' > m.tk
  touch -d '+5 seconds' m.tk
  rm common.tk
  make -s >/dev/null 2>err.txt || { cat err.txt; fail "make stopped after the import was deleted"; }
  ;;
stdin_input)
  expect_rc 0 bash -c "\"$TKC\" - --emit=tensor < common.tk"
  grep -q 'op addone' out.txt || fail "stdin --emit=tensor"
  expect_rc 0 bash -c "cat common.tk | \"$TKC\" - --hw=zen5-2c --emit=asm -o -"
  grep -q 'addone' out.txt || fail "stdin --emit=asm -o -"
  expect_rc 0 bash -c "\"$TKC\" /dev/stdin --hw=zen5-2c -o s.o < m.tk"
  [ -s s.o ] || fail "/dev/stdin -o s.o"
  expect_rc 0 bash -c "\"$TKC\" /dev/fd/3 --emit=tensor 3< common.tk"
  # Diagnostics name <stdin>; a stream input needs -o for file outputs.
  expect_rc 1 bash -c "printf 'op bad(A: f32[N]) -> C: f32[N] {\n  C[i] = A[j];\n}\n' | \"$TKC\" - --emit=tensor"
  grep -q '^<stdin>:2:' err.txt || fail "stdin diagnostic location: $(cat err.txt)"
  expect_rc 2 bash -c "\"$TKC\" - < common.tk"
  grep -q 'name the output with -o' err.txt || fail "stream input without -o: $(cat err.txt)"
  # The depfile of a stream input lists its imports, not the stream.
  expect_rc 0 bash -c "\"$TKC\" - -o d.o --hw=zen5-2c -MD < m.tk"
  grep -q 'stdin' d.d && fail "the stream in the depfile: $(cat d.d)"
  grep -q 'common.tk' d.d || fail "the import missing from a stream input's depfile"
  ;;
trace_stream)
  # A kernel with a hole (the golden construct_trace test's).
  cp "$STDLIB/../tests/golden/construct_trace.tk" holes.tk
  set -- --shape-hint=M=96 --shape-hint=N=40
  # The trace goes to stderr, never into `-o -`; or into a file.
  "$TKC" holes.tk "$@" --hw=zen5-2c --construct-trace --emit=asm -o - > asm.txt 2> trace.txt ||
    { cat trace.txt; fail "--construct-trace -o -"; }
  grep -q 'top_results' trace.txt || fail "no trace on stderr: $(head -3 trace.txt)"
  grep -q 'top_results' asm.txt && fail "trace text in the output stream"
  expect_rc 0 "$TKC" holes.tk "$@" --hw=zen5-2c --construct-trace=t.txt --emit=asm -o h.s
  grep -q 'top_results' t.txt || fail "--construct-trace=FILE wrote no trace"
  ;;
interrupt_cleanup)
  # SIGINT / SIGTERM while the output is being written remove the
  # temporary file (the test hook delivers the signal at that point).
  for sig in 2 15; do
    TKC_TEST_SIGNAL_WHILE_WRITING=$sig "$TKC" m.tk --hw=zen5-2c -o out.o >/dev/null 2>&1
    rc=$?
    [ "$rc" -eq $((128 + sig)) ] || fail "signal $sig: exit status $rc"
    ls out.o.tmp.* >/dev/null 2>&1 && fail "signal $sig left a temporary file: $(ls)"
  done
  [ ! -e out.o ] || fail "an interrupted write left a partial output"
  ;;
several_outputs)
  # ISPC's -h FILE and --header=FILE: the object and the header in one run.
  expect_rc 0 "$TKC" m.tk --hw=zen5-2c -o o1.o -h o1.h
  grep -q 'int matmul(' o1.h || fail "-h FILE header"
  file o1.o | grep -q 'ELF' || fail "-h FILE object"
  expect_rc 0 "$TKC" m.tk --hw=zen5-2c -o o2.o --header=o2.h -MD
  [ "$(head -n1 o2.d)" = 'o2.o o2.h: \' ] || fail "header not a depfile target: $(head -n1 o2.d)"
  expect_rc 2 "$TKC" m.tk --emit=obj --emit=header -o x.o
  grep -q 'conflicting --emit' err.txt || fail "conflicting --emit: $(cat err.txt)"
  [ ! -e x.o ] || fail "conflicting --emit wrote x.o"
  expect_rc 0 "$TKC" -h
  grep -q 'usage: tkc' out.txt || fail "-h alone is help"
  ;;
json_always)
  # With --diagnostics-format=json every byte on stderr is one JSON document:
  # driver errors (an output it cannot write, a usage error) included, and a
  # source line that is not UTF-8.
  valid_json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert isinstance(d, list)' "$1"; }
  expect_rc 1 "$TKC" m.tk --hw=zen5-2c -o no/such/dir/x.o --diagnostics-format=json
  valid_json err.txt || fail "write error: not one JSON document: $(cat err.txt)"
  grep -q "cannot write 'no/such/dir/x.o'" err.txt || fail "write error message: $(cat err.txt)"
  grep -q 'tmp' err.txt && fail "the message names the temporary file: $(cat err.txt)"
  expect_rc 2 "$TKC" m.tk --emit=nonsense --diagnostics-format=json
  valid_json err.txt || fail "usage error: not one JSON document: $(cat err.txt)"
  printf 'op bad(A: f32[N]) -> C: f32[N] {\n  C[i] = A[j]; // caf\351 \377\n}\n' > latin1.tk
  expect_rc 1 "$TKC" latin1.tk --diagnostics-format=json
  valid_json err.txt || fail "Latin-1 source line: not valid JSON: $(cat err.txt)"
  grep -q 'ufffd' err.txt || fail "invalid UTF-8 not replaced: $(cat err.txt)"
  expect_rc 2 "$TKC" m.tk --diagnostics-format=json --construct-trace
  valid_json err.txt || fail "trace refusal: not JSON"
  ;;
dev_outputs)
  # -o onto the real /dev/null, and /dev/stdout into a pipe (gcc accepts both).
  expect_rc 0 "$TKC" m.tk --hw=zen5-2c -o /dev/null
  "$TKC" m.tk --hw=zen5-2c --emit=asm -o /dev/stdout | grep -q 'matmul' || fail "-o /dev/stdout into a pipe"
  ;;
*)
  fail "unknown case"
  ;;
esac
exit 0
