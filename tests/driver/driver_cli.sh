#!/usr/bin/env bash
# tkc command-line tests. Usage: driver_cli.sh CASE TKC LIBTKRT
# Each case works in a fresh temporary directory whose name contains a
# space and a '$' (paths like that must survive depfiles and quoting).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
CASE=$1 TKC=$2 RT=$3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
DIR="$WORK/my dir\$x"
mkdir -p "$DIR/inc"
cd "$DIR" || exit 1


cat > inc/scale.tk <<'TK'
op scale(X: f32[N], alpha: f32) -> Y: f32[N] {
  Y[i] = X[i] * alpha;
}
TK
cat > add.tk <<'TK'
import "scale.tk";
export scale;
op add(A: f32[N], B: f32[N]) -> C: f32[N] {
  C[i] = A[i] + B[i];
}
TK
cat > mul.tk <<'TK'
op mul(A: f32[N], B: f32[N]) -> C: f32[N] {
  C[i] = A[i] * B[i];
}
TK
printf 'op bad(A: f32[N]) -> C: f32[N] {\n  C[i] = A[j];\n}\n' > bad.tk

case $CASE in
exit_codes)
  expect_rc 0 "$TKC" add.tk -I inc --target=x86_64
  [ -s add.o ] || fail "add.o not written by default"
  expect_rc 1 "$TKC" bad.tk
  grep -q '^bad.tk:2:12: error: ' err.txt || fail "no located diagnostic"
  expect_rc 2 "$TKC" --frobnicate add.tk
  grep -q "^tkc: error: unknown argument '--frobnicate'" err.txt || fail "bad unknown-flag message"
  expect_rc 2 "$TKC"
  grep -q '^tkc: error: no input file' err.txt || fail "bad missing-input message"
  expect_rc 2 "$TKC" add.tk --emit=bogus
  expect_rc 2 "$TKC" add.tk -O7
  expect_rc 2 "$TKC" add.tk --target=riscv
  expect_rc 2 "$TKC" add.tk --target=cuda-sm80
  grep -q "unknown CUDA target 'cuda-sm80'" err.txt || fail "cuda target message"
  expect_rc 2 "$TKC" add.tk --emit=ptx
  grep -q 'needs a cuda target' err.txt || fail "ptx message"
  expect_rc 2 "$TKC" add.tk --emit=sunway
  expect_rc 2 "$TKC" add.tk --target=sunway -o add.o
  grep -q "target 'sunway' writes several files .*name a directory with -o DIR/" err.txt || fail "sunway -o message"
  expect_rc 2 "$TKC" add.tk --target=sunway-xl
  grep -q "unknown Sunway target 'sunway-xl'" err.txt || fail "sunway target message"
  expect_rc 1 "$TKC" missing.tk
  expect_rc 2 "$TKC" add.tk -mllvm -no-such-option
  [ "$(cat err.txt)" = "tkc: error: -mllvm: Unknown command line argument '-no-such-option'." ] ||
    fail "bad -mllvm message: $(cat err.txt)"
  expect_rc 0 "$TKC" add.tk -I inc -mllvm -unroll-runtime=false -o add2.o
  ;;
version)
  expect_rc 0 "$TKC" --version
  head -n1 out.txt | grep -Eq '^tkc 0\.1\.0 \(LLVM 19\.1\.[0-9]+\)$' || fail "first line: $(head -n1 out.txt)"
  expect_rc 0 "$TKC" --help
  grep -q -- '--emit=KIND' out.txt || fail "help text"
  ;;
depfile)
  expect_rc 0 "$TKC" add.tk -I inc -o "out #1.o" -MD
  [ -f "out #1.d" ] || fail "default depfile name"
  want=$(printf '%s\n' 'out\ \#1.o: \' "  add.tk \\" '  inc/scale.tk')
  [ "$(cat "out #1.d")" = "$want" ] || fail "depfile content: $(cat "out #1.d")"
  # -MT is written as given (gcc), -MQ quoted for make.
  expect_rc 0 "$TKC" "$DIR/add.tk" -I "$DIR/inc" -o x.o -MD -MF deps.d -MQ 'tgt$1'
  esc=$(printf '%s' "$DIR" | sed -e 's/\$/$$/g' -e 's/ /\\ /g')
  want=$(printf '%s\n' 'tgt$$1: \' "  $esc/add.tk \\" "  $esc/inc/scale.tk")
  [ "$(cat deps.d)" = "$want" ] || fail "escaped depfile: $(cat deps.d) != $want"
  rm -f bad.d
  expect_rc 1 "$TKC" bad.tk -MD -MF bad.d
  [ ! -e bad.d ] || fail "depfile written on failure"
  ;;
response_file)
  printf -- '-I inc\n"--target=x86_64" @nested.rsp\n' > args.rsp
  printf -- "-o 'from rsp.o' --emit=obj\n" > nested.rsp
  expect_rc 0 "$TKC" @args.rsp add.tk
  [ -s "from rsp.o" ] || fail "response file options ignored"
  printf -- '@self.rsp\n' > self.rsp
  expect_rc 2 "$TKC" @self.rsp add.tk
  grep -q 'nested' err.txt || fail "recursion message"
  expect_rc 2 "$TKC" @nope.rsp
  ;;
unchanged_output)
  expect_rc 0 "$TKC" add.tk -I inc -o k.o --target=x86_64
  touch -d '2001-01-01 00:00:00' k.o
  before=$(stat -c %Y k.o)
  expect_rc 0 "$TKC" add.tk -I inc -o k.o --target=x86_64
  [ "$(stat -c %Y k.o)" = "$before" ] || fail "unchanged output was rewritten"
  expect_rc 0 "$TKC" add.tk -I inc -o k.o --target=x86_64 -O0
  [ "$(stat -c %Y k.o)" != "$before" ] || fail "changed output not rewritten"
  ls k.o.tmp.* >/dev/null 2>&1 && fail "temporary file left behind"
  ;;
reproducible)
  for e in obj asm llvm header loop; do
    expect_rc 0 "$TKC" add.tk -I inc --emit=$e -o a.$e --target=x86_64-avx2
    # Same file compiled again from another directory.
    mkdir -p other && cp add.tk other/ && (cd other && "$TKC" add.tk -I ../inc --emit=$e -o a.$e --target=x86_64-avx2) \
      || fail "second compile"
    cmp -s a.$e other/a.$e || fail "--emit=$e differs between runs"
  done
  ;;
header_c_cxx)
  expect_rc 0 "$TKC" add.tk -I inc --emit=header
  expect_rc 0 "$TKC" mul.tk --emit=header
  expect_rc 0 "$TKC" add.tk -I inc --target=x86_64
  expect_rc 0 "$TKC" mul.tk --target=x86_64
  grep -q '^int add(const float \*A, const float \*B, float \*C, int64_t N);' add.h || fail "add prototype"
  cat > use.c <<'C'
#include "add.h"
#include "mul.h"
#include <stdio.h>
int main(void) {
  float a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, c[3], d[3];
  if (add(a, b, c, 3) != TK_STATUS_OK || mul(a, b, d, 3) != 0 || scale(a, 2.0f, b, 3) != 0) return 1;
  printf("%g %g %g\n", c[2], d[2], b[1]);
  return 0;
}
C
  cp use.c use.cpp
  cc -std=c99 -Wall -Werror use.c add.o mul.o "$RT" -lm -lpthread -o use_c || fail "C build"
  c++ -Wall -Werror use.cpp add.o mul.o "$RT" -lm -lpthread -o use_cpp || fail "C++ build"
  [ "$(./use_c)" = "9 18 4" ] || fail "C run: $(./use_c)"
  [ "$(./use_cpp)" = "9 18 4" ] || fail "C++ run"
  ;;
json_diagnostics)
  expect_rc 1 "$TKC" bad.tk --diagnostics-format=json
  python3 - err.txt <<'PY' || fail "json diagnostics do not parse"
import json, sys
d = json.load(open(sys.argv[1]))
assert d[0]["severity"] == "error" and d[0]["line"] == 2 and d[0]["column"] == 12, d
PY
  ;;
color)
  ESC=$(printf '\033')
  NO_COLOR= expect_rc 1 "$TKC" bad.tk --color=always
  grep -q "$ESC\[" err.txt || fail "--color=always without escapes"
  expect_rc 1 "$TKC" bad.tk --color=never
  grep -q "$ESC" err.txt && fail "--color=never with escapes"
  # auto: stderr is a file here, so no colour; NO_COLOR must not matter then either.
  NO_COLOR=1 expect_rc 1 "$TKC" bad.tk
  grep -q "$ESC" err.txt && fail "auto colour with NO_COLOR"
  if command -v script >/dev/null; then
    NO_COLOR=1 script -qec "$TKC bad.tk" /dev/null > tty.txt
    grep -q "$ESC\[1;31m" tty.txt && fail "NO_COLOR ignored on a terminal"
    NO_COLOR= script -qec "$TKC bad.tk" /dev/null > tty.txt
    grep -q "$ESC\[" tty.txt || fail "no colour on a terminal"
  fi
  ;;
stdout_output)
  expect_rc 0 "$TKC" add.tk -I inc --emit=llvm -o -
  grep -q 'define i32 @add' out.txt || fail "llvm to stdout"
  expect_rc 0 "$TKC" add.tk -I inc --emit=tensor
  grep -q 'add' out.txt || fail "tensor dump to stdout"
  ;;
rank_measure)
  # --rank=measure times the top candidates of a constructed matmul in
  # process and builds one of them; cuda targets refuse.
  printf 'op mm(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] {\n  C[i, j] = sum(k) A[i, k] * B[k, j];\n}\n' > mm.tk
  expect_rc 0 "$TKC" mm.tk --rank=measure --shape-hint=M=96 --shape-hint=K=64 --shape-hint=N=80 --emit=mapping
  grep -q 'local packed_A' out.txt || fail "measured construction did not build the packed kernel"
  expect_rc 0 "$TKC" mm.tk --rank=measure --shape-hint=M=96 --shape-hint=K=64 --shape-hint=N=80 -o mm.o
  expect_rc 2 "$TKC" mm.tk --rank=measure --target=cuda-sm_80 --emit=ptx
  grep -q 'needs a GPU run' err.txt || fail "cuda --rank=measure message"
  # A kernel's holes: every legal point of the template is timed (3 of the
  # 4: 8 x 64 breaks the require), recorded with a nest_loop per hole whose
  # step is its value, and one of them is built.
  cat > holes.tk <<'TK'
import "mm.tk";
kernel mmh implements mm on cpu {
  let T = ? in {4, 8};
  let U = ? in {32, 64};
  require T * U <= 256;
  for (bi, bj) in spatial(cdiv(M, T), cdiv(N, U)) on cores {
    for (i, j) in repeat(T, U) {
      C[bi*T + i, bj*U + j] = 0;
      for k in 0..K { C[bi*T + i, bj*U + j] += A[bi*T + i, k] * B[k, bj*U + j]; }
    }
  }
}
TK
  rm -f holes.jsonl
  expect_rc 0 "$TKC" holes.tk --rank=measure --measure-top=8 --shape-hint=M=64 --shape-hint=K=32 --shape-hint=N=64 \
    --records-out=holes.jsonl --construct-trace=trace.txt -o holes.o
  [ "$(grep -c '"candidate":"holes-gensor"' holes.jsonl)" = 3 ] || fail "hole records: $(cat holes.jsonl)"
  grep -q '{"k":"nest_loop","n":\[1.0,64.0,1.0,0.0\],"s":\["j"\]}' holes.jsonl || fail "no nest_loop for U = 64: $(head -1 holes.jsonl)"
  grep -q '{"k":"nest_loop","n":\[0.0,8.0,8.0,0.0\],"s":\["i"\]}' holes.jsonl || fail "no nest_loop for T = 8"
  [ "$(grep -c '^// measured ?0 = ' trace.txt)" = 3 ] || fail "trace: $(cat trace.txt)"
  grep -q '^// chosen: ?0 = [48] ?1 = \(32\|64\)$' trace.txt || fail "no choice in the trace"
  ;;
cost_model)
  # Records from timed candidates, a model trained on them, and that model
  # ranking the next build (docs/costmodel.md); every refusal says why.
  printf 'op mm(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] {\n  C[i, j] = sum(k) A[i, k] * B[k, j];\n}\n' > mm.tk
  HINTS="--shape-hint=M=96 --shape-hint=K=64 --shape-hint=N=80"
  expect_rc 0 "$TKC" mm.tk --rank=measure --measure-top=3 --records-out=r.jsonl $HINTS -o mm.o
  [ "$(wc -l < r.jsonl)" -ge 2 ] || fail "--records-out wrote $(wc -l < r.jsonl) records"
  grep -q '"format":"tk-record"' r.jsonl || fail "records format"
  grep -q '"candidate":"rule"' r.jsonl || fail "the rule's candidate is not recorded"
  # The host's id names its CPU family and vector ISA (VMs of two generations
  # report the same model name).
  grep -Eq '"hardware":"host-([a-z0-9]+-)*f[0-9]+-(avx512|avx2|sse2)-[0-9]+c"' r.jsonl || fail "host hardware id form"
  expect_rc 0 "$TKC" train-cost-model -o m.tkcm --epochs=3 --validation=0 r.jsonl
  head -1 m.tkcm | grep -qx 'tk-costmodel 1' || fail "model header"
  grep -q '^epoch 3/3: loss' err.txt || fail "training progress"
  HEAD=$(sed -n 's/^outputs 1 //p' m.tkcm)
  expect_rc 0 "$TKC" mm.tk --rank=model --cost-model=m.tkcm $HINTS --construct-trace --emit=mapping
  grep -q 'cost model: 64 blockings of mm scored, best first' err.txt || fail "model ranking trace"
  grep -q 'local packed_A' out.txt || fail "model-ranked construction did not build the packed kernel"
  # --measure-top with the model: the model's best few are timed, and appended.
  BEFORE=$(wc -l < r.jsonl)
  expect_rc 0 "$TKC" mm.tk --rank=model --cost-model=m.tkcm --measure-top=2 --records-out=r.jsonl $HINTS -o mm.o
  [ "$(wc -l < r.jsonl)" -eq $((BEFORE + 2)) ] || fail "--measure-top=2 did not append two records"
  # The shipped weights load and rank with one of their heads (this machine
  # may have none of its own): the refusal lists them.
  expect_rc 1 "$TKC" mm.tk --rank=model --cost-model-head=nosuch-machine $HINTS --emit=mapping
  SHIPPED_HEAD=$(sed -n 's/.*(it was trained for: \([^,)]*\).*/\1/p' err.txt)
  [ -n "$SHIPPED_HEAD" ] || fail "no head listed for the shipped model"
  expect_rc 0 "$TKC" mm.tk --rank=model --cost-model-head="$SHIPPED_HEAD" $HINTS --emit=mapping
  # Refusals.
  expect_rc 1 "$TKC" mm.tk --rank=model --cost-model=m.tkcm --cost-model-head=nosuch-machine $HINTS
  grep -q "m.tkcm:1:1: error: cost model has no head for hardware 'nosuch-machine' (it was trained for: $HEAD)" err.txt ||
    fail "missing head message"
  printf 'tk-costmodel 9\n' > bad.tkcm
  expect_rc 1 "$TKC" mm.tk --rank=model --cost-model=bad.tkcm
  grep -q '^bad.tkcm:1:' err.txt || fail "bad model not located"
  expect_rc 2 "$TKC" mm.tk --records-out=x.jsonl
  grep -q 'it needs --rank=measure or --measure-top=K' err.txt || fail "--records-out alone"
  expect_rc 2 "$TKC" mm.tk --measure-top=0
  expect_rc 2 "$TKC" mm.tk --rank=model --target=cuda-sm_80 --emit=ptx
  grep -q 'ranks CPU kernels' err.txt || fail "cuda --rank=model message"
  { head -1 r.jsonl; echo '{"format":"tk-record","version":1}'; } > broken.jsonl
  expect_rc 1 "$TKC" train-cost-model -o m2.tkcm broken.jsonl
  grep -q "^broken.jsonl:2:1: error: record has no 'hardware'" err.txt || fail "malformed record not located"
  [ -e m2.tkcm ] && fail "a model was written from malformed records"
  expect_rc 2 "$TKC" train-cost-model r.jsonl
  grep -q 'needs -o MODEL.tkcm' err.txt || fail "train-cost-model without -o"
  # tkc tune records every nest it times, in the same format.
  printf 'op mmc(A: f32[48, 32], B: f32[32, 64]) -> C: f32[48, 64] {\n  C[i, j] = sum(k) A[i, k] * B[k, j];\n}\n' > mmc.tk
  expect_rc 0 "$TKC" tune mmc.tk --search=greedy1 --budget=0.3 --records-out=t.jsonl -o mmc.tkr
  [ "$(wc -l < t.jsonl)" -ge 2 ] || fail "tkc tune --records-out wrote $(wc -l < t.jsonl) records"
  grep -q '"candidate":"looptune-greedy1"' t.jsonl || fail "tune records' candidate"
  grep -q '{"k":"nest_loop","n":\[0.0,1.0,48.0,0.0\],"s":\["i"\]}' t.jsonl || fail "the initial nest's loop over i"
  expect_rc 0 "$TKC" train-cost-model -o t.tkcm --epochs=2 --validation=0 t.jsonl
  expect_rc 2 "$TKC" tune mmc.tk --records-out=/nonexistent-dir/t.jsonl
  grep -q "cannot open records file" err.txt || fail "unwritable tune records"
  ;;
special_outputs)
  # -o naming a device, FIFO or directory: written in place (never renamed
  # over, never read), or an error; a private device node, never the real one.
  if mknod devnull c 1 3 2>/dev/null; then
    expect_rc 0 "$TKC" add.tk -I inc -o devnull
    [ -c devnull ] || fail "-o onto a character device replaced it"
    ls devnull.tmp.* >/dev/null 2>&1 && fail "temporary file left behind"
    expect_rc 0 "$TKC" add.tk -I inc -o devnull -MD -MF devnull
    [ -c devnull ] || fail "depfile onto a character device replaced it"
  fi
  if mknod devzero c 1 5 2>/dev/null; then
    # The unchanged-output comparison must not read an endless device.
    expect_rc 0 timeout 20 "$TKC" add.tk -I inc -o devzero
    [ -c devzero ] || fail "-o onto /dev/zero-like node replaced it"
  fi
  mkfifo fifo
  cat fifo > fifo.out & reader=$!
  expect_rc 0 timeout 20 "$TKC" add.tk -I inc --emit=llvm -o fifo
  wait $reader
  [ -p fifo ] || fail "-o onto a FIFO replaced it"
  grep -q 'define i32 @add' fifo.out || fail "nothing written through the FIFO"
  expect_rc 1 timeout 20 "$TKC" add.tk -I inc -o fifo
  grep -q "cannot write 'fifo'" err.txt || fail "FIFO without reader: $(cat err.txt)"
  mkdir outdir
  expect_rc 1 "$TKC" add.tk -I inc -o outdir
  grep -q "is a directory" err.txt || fail "directory output message"
  ;;
bounded_inputs)
  # Inputs that are not regular files, or are huge, are refused without
  # reading them to the end.
  mkfifo hwfifo
  head -c $((65 << 20)) /dev/zero > huge.hw
  for hw in /dev/zero "$PWD/hwfifo" "$PWD/huge.hw"; do
    expect_rc 1 timeout 20 "$TKC" add.tk -I inc --hw="$hw" -o x.o
    grep -q "cannot read hardware description" err.txt || fail "--hw=$hw: $(cat err.txt)"
  done
  for tr in /dev/zero hwfifo huge.hw; do
    expect_rc 2 timeout 20 "$TKC" add.tk -I inc --tuning-records="$tr" -o x.o
    grep -q "cannot read tuning records" err.txt || fail "--tuning-records=$tr: $(cat err.txt)"
  done
  expect_rc 2 timeout 20 "$TKC" @/dev/zero add.tk
  grep -q "cannot read response file" err.txt || fail "@/dev/zero: $(cat err.txt)"
  ;;
shape_hint_bounds)
  printf 'op mm(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] {\n  C[i, j] = sum(k) A[i, k] * B[k, j];\n}\n' > mm.tk
  expect_rc 0 timeout 60 "$TKC" mm.tk --shape-hint=K=1099511627776 -o mm.o
  for bad in K=1099511627777 K=4611686018427387904 K=99999999999999999999 K=0 K=-3 K= =5 K; do
    expect_rc 2 timeout 20 "$TKC" mm.tk --shape-hint=$bad -o mm.o
    grep -q "invalid value .* for --shape-hint (expected SYMBOL=N with 1 <= N <= 1099511627776)" err.txt \
      || fail "--shape-hint=$bad: $(cat err.txt)"
  done
  ;;
input_limits)
  # Memory bounds (docs/language.md §9): declarations and tokens per file.
  python3 -c "
for i in range(10001): print(f'op f{i}(X: f32[N]) -> Y: f32[N] {{ Y[i] = X[i] + 1.0; }}')" > many.tk
  expect_rc 1 timeout 60 "$TKC" --emit=tensor many.tk
  grep -q '^many.tk:10001:1: error: more than 10000 declarations in one file' err.txt || fail "decl cap: $(head -3 err.txt)"
  python3 -c "
print('op f(X: f32[N]) -> Y: f32[N] {')
for i in range(100000): print('  Y[i] = X[i] + 1.0;')
print('}')" > tokens.tk
  expect_rc 1 timeout 60 "$TKC" --emit=tensor tokens.tk
  grep -q '^tokens.tk:.*: error: file too large: more than 1000000 tokens' err.txt || fail "token cap: $(head -3 err.txt)"
  ;;
output_dir)
  # -o DIR/ (a trailing '/') writes a build's outputs into DIR, created if
  # missing, as BASENAME<suffix>: each the same bytes as its one-file compile.
  expect_rc 0 "$TKC" add.tk -I inc --target=x86_64 -o "cpu out/"
  [ "$(ls "cpu out" | tr '\n' ' ')" = "add.h add.o " ] || fail "cpu outputs: $(ls "cpu out")"
  grep -q '^#ifndef TK_ADD_H$' "cpu out/add.h" || fail "cpu header guard"
  expect_rc 0 "$TKC" add.tk -I inc --target=x86_64 -o one.o
  cmp -s one.o "cpu out/add.o" || fail "cpu object differs from -o FILE"
  expect_rc 0 "$TKC" add.tk -I inc --target=cuda-sm_80 -o cu/
  [ "$(ls cu | tr '\n' ' ')" = "add.h add.o add.ptx " ] || fail "cuda outputs: $(ls cu)"
  expect_rc 0 "$TKC" add.tk -I inc --target=cuda-sm_80 -o one.o
  cmp -s one.o cu/add.o || fail "host object differs from -o FILE"
  expect_rc 0 "$TKC" add.tk -I inc --target=cuda-sm_80 --emit=ptx -o one.ptx
  cmp -s one.ptx cu/add.ptx || fail "PTX differs from --emit=ptx"
  grep -q '^\.target sm_80' cu/add.ptx || fail "PTX target"
  expect_rc 0 "$TKC" add.tk -I inc --target=cuda-sm_80 --emit=header -o add.h
  cmp -s add.h cu/add.h || fail "header differs from --emit=header"
  grep -q 'void \*stream' cu/add.h || fail "cuda header prototypes"
  # Other code kinds write their one file; dumps and tune need a file.
  expect_rc 0 "$TKC" add.tk -I inc --target=cuda-sm_80 --emit=llvm -o ll/
  [ "$(ls ll)" = add.ll ] || fail "--emit=llvm into a directory: $(ls ll)"
  expect_rc 2 "$TKC" add.tk -I inc --emit=loop -o dump/
  grep -q 'is for code outputs' err.txt || fail "dump into a directory: $(cat err.txt)"
  [ ! -e dump ] || fail "directory created on a usage error"
  expect_rc 1 "$TKC" bad.tk -o failed/
  [ ! -e failed ] || fail "directory created on a failed compile"
  ;;
atomic_replace)
  # Every output of -o DIR/ is renamed into place (a reader holding the old
  # file keeps it whole) and an unchanged one is left alone.
  mkdir cu
  printf 'stale' > cu/add.ptx
  ln cu/add.ptx held.ptx
  expect_rc 0 "$TKC" add.tk -I inc --target=cuda-sm_80 -o cu/
  [ "$(cat held.ptx)" = stale ] || fail "old PTX overwritten in place"
  grep -q '^\.target sm_80' cu/add.ptx || fail "PTX not replaced"
  ls cu/*.tmp.* >/dev/null 2>&1 && fail "temporary file left behind"
  touch -d '2000-01-01 00:00:00 UTC' cu/add.o cu/add.ptx cu/add.h
  expect_rc 0 "$TKC" add.tk -I inc --target=cuda-sm_80 -o cu/
  for f in add.o add.ptx add.h; do
    [ "$(stat -c %Y "cu/$f")" = 946684800 ] || fail "unchanged cu/$f rewritten"
  done
  ;;
depfile_outputs)
  # Every output of -o DIR/ is a target of the depfile (default DIR/BASENAME.d).
  expect_rc 0 "$TKC" add.tk -I inc --target=cuda-sm_80 -o "cu dir/" -MD
  # The cuda target's hardware description (h100.hw) changes the output too.
  want=$(printf '%s\n' 'cu\ dir/add.o cu\ dir/add.ptx cu\ dir/add.h: \' "  add.tk \\" '  inc/scale.tk \')
  [ "$(head -n3 "cu dir/add.d")" = "$want" ] || fail "depfile: $(cat "cu dir/add.d")"
  tail -n1 "cu dir/add.d" | grep -q '/targets/h100\.hw$' || fail "depfile misses h100.hw: $(cat "cu dir/add.d")"
  expect_rc 0 "$TKC" add.tk -I inc --target=x86_64 -o cpu/ -MD -MF cpu.d
  [ "$(head -n1 cpu.d)" = 'cpu/add.o cpu/add.h: \' ] || fail "cpu depfile: $(cat cpu.d)"
  expect_rc 0 "$TKC" add.tk -I inc --target=x86_64 -o cpu/ -MD -MF cpu.d -MT all
  [ "$(head -n1 cpu.d)" = 'all: \' ] || fail "-MT with a directory: $(cat cpu.d)"
  ;;
print_hw)
  # --print-hw prints the description in effect (canonical .hw text) and
  # exits 0 without an input.
  cat > pinned.hw <<'HW'
format = 1
name = pinned-1c
family = cpu
units = 1
vector_bits = 256
gflops_f32 = 100

[level dram]
capacity = 8589934592
bandwidth = 20
latency = 90
transaction = 64
shared = true

[level l1]
capacity = 32768
bandwidth = 200
latency = 1
transaction = 64

[level registers]
capacity = 512
bandwidth = 400
latency = 0.3
transaction = 32
HW
  expect_rc 0 "$TKC" --print-hw --hw=./pinned.hw
  cmp -s out.txt pinned.hw || fail "pinned description: $(diff out.txt pinned.hw)"
  expect_rc 0 "$TKC" --print-hw --target=cuda-sm_80
  grep -q '^name = h100$' out.txt || fail "cuda default description: $(head -3 out.txt)"
  expect_rc 0 "$TKC" --print-hw
  grep -q '^family = cpu$' out.txt || fail "host description: $(head -3 out.txt)"
  cp out.txt host.hw
  expect_rc 0 "$TKC" --print-hw --hw=./host.hw
  cmp -s out.txt host.hw || fail "host description does not round-trip"
  expect_rc 1 "$TKC" --print-hw --hw=./missing.hw
  grep -q 'cannot read hardware description' err.txt || fail "missing --hw: $(cat err.txt)"
  ;;
kernel_hints)
  # `stream` stores and `prefetch` (what constructed CPU kernels print,
  # --emit=kernel) parse in kernels and are refused where they mean nothing.
  cat >h.tk <<'TK'
op twice(X: f32[N]) -> Y: f32[N] { Y[i] = X[i] * 2.0; }
kernel twice_hinted implements twice on cpu {
  for (i) in spatial(N) on cores { prefetch X[i]; Y[i] = X[i] * 2.0 stream; }
}
TK
  expect_rc 0 "$TKC" h.tk --emit=mapping -o -
  grep -q 'prefetch X\[i\];' out.txt || fail "prefetch lost"
  grep -q 'Y\[i\] = X\[i\] \* 2.0 stream;' out.txt || fail "stream lost"
  sed 's/ stream;/ fast;/' h.tk >bad.tk
  expect_rc 1 "$TKC" bad.tk --emit=mapping -o -
  grep -q "unknown store hint 'fast' (expected stream, a non-temporal store)" err.txt || fail "hint message"
  sed 's/prefetch X/preload X/' h.tk >bad.tk
  expect_rc 1 "$TKC" bad.tk --emit=mapping -o -
  grep -q "unknown statement 'preload' (expected prefetch T\[..\] or a store)" err.txt || fail "prefetch message"
  sed 's/on cpu {/on cuda {/; s/on cores/on blocks/' h.tk >gpu.tk
  expect_rc 1 "$TKC" gpu.tk --target=cuda --emit=mapping -o -
  grep -q "'prefetch' is for cpu kernels" err.txt || fail "cuda prefetch message"
  grep -q "'stream' stores are for cpu kernels" err.txt || fail "cuda stream message"
  printf 'op t(X: f32[N]) -> Y: f32[N] { Y[i] = X[i] stream; }\n' >op.tk
  expect_rc 1 "$TKC" op.tk --emit=mapping -o -
  grep -q "a store hint ('stream') belongs in a kernel, not in an op body" err.txt || fail "op hint message"
  # --emit=kernel: default schedules with their reductions as loops.
  expect_rc 0 "$TKC" h.tk --emit=kernel -o -
  grep -q '^kernel twice_hinted_schedule implements twice on cpu {' out.txt || fail "user kernel not printed"
  # Sibling loops named alike become i and i.1 in the mapping IR, i and i_1
  # (no clash with the user's own i_1_ names) in the printed kernel.
  cat >u.tk <<'TK'
op twice(X: f32[N]) -> Y: f32[N] { Y[i] = X[i] * 2.0; }
kernel twice_twice implements twice on cpu {
  for (b) in spatial(cdiv(N, 4)) on cores {
    for (i) in repeat(4) { Y[b*4 + i] = 0.0; }
    for (i) in repeat(4) { Y[b*4 + i] += X[b*4 + i] * 2.0; }
  }
}
TK
  expect_rc 0 "$TKC" u.tk --emit=kernel -o k.tk
  grep -q 'for (i_1) in repeat(4)' k.tk || fail "unique loop name not spelt as an identifier"
  grep -q 'i\.1' k.tk && fail "a dotted name was printed"
  # Printed as twice_twice_schedule, so it compiles beside the file it came from.
  grep -q '^kernel twice_twice_schedule implements twice' k.tk || fail "user kernel not named <kernel>_schedule"
  { echo 'import "u.tk";'; cat k.tk; } >rt.tk
  expect_rc 0 "$TKC" rt.tk --emit=mapping -o -
  ;;
dump_after_each_pass)
  # The scheduler's IR after every pass goes to stderr; the output is as
  # without the flag.
  expect_rc 0 "$TKC" add.tk -I inc --target=x86_64 --emit=loop
  cp out.txt plain.txt
  expect_rc 0 "$TKC" add.tk -I inc --target=x86_64 --emit=loop --dump-after-each-pass
  cmp -s out.txt plain.txt || fail "stdout changed by --dump-after-each-pass"
  grep -q '^// ---- after DefaultSchedule: add ----$' err.txt || fail "no DefaultSchedule dump: $(head -3 err.txt)"
  [ "$(grep -c '^// ---- after ' err.txt)" -gt 3 ] || fail "too few pass dumps"
  expect_rc 0 "$TKC" add.tk -I inc --target=x86_64 --emit=tensor --dump-after-each-pass
  [ ! -s err.txt ] || fail "dump before scheduling: $(head -3 err.txt)"
  ;;
parallel_codegen)
  # An object of several exports: one LLVM module per export, compiled on
  # -j threads and joined by `ld -r` (docs/driver.md). The object does not
  # depend on the thread count, defines every export, and links and runs.
  for j in 1 2 4; do expect_rc 0 "$TKC" add.tk -I inc --target=x86_64 -O2 -j$j -o add.j$j.o; done
  cmp -s add.j1.o add.j2.o && cmp -s add.j1.o add.j4.o || fail "the object depends on -j"
  expect_rc 0 "$TKC" add.tk -I inc --target=x86_64 --jobs=2 -o add.o
  cmp -s add.o add.j1.o || fail "--jobs=2 differs from -j2"
  [ "$(nm add.o | awk '$2 == "T" {print $3}' | sort | tr '\n' ' ')" = "add scale " ] || fail "exports: $(nm add.o)"
  readelf -SW add.o | grep -q 'note.GNU-stack' || fail "joined object lost .note.GNU-stack"
  cat > use.c <<'C'
#include "add.h"
#include <stdio.h>
int main(void) {
  float a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, c[3];
  if (add(a, b, c, 3) != 0 || scale(a, 2.0f, b, 3) != 0) return 1;
  printf("%g %g\n", c[2], b[1]);
  return 0;
}
C
  expect_rc 0 "$TKC" add.tk -I inc --emit=header -o add.h
  cc -std=c99 -Wall -Werror use.c add.o "$RT" -lm -lpthread -o use || fail "link"
  [ "$(./use)" = "9 4" ] || fail "run: $(./use)"
  readelf -lW use | grep GNU_STACK | grep -q RWE && fail "executable stack"
  # Without a linker: one module, as before.
  TK_LD=/nonexistent expect_rc 0 "$TKC" add.tk -I inc --target=x86_64 -o add1.o
  cc -std=c99 -Wall -Werror use.c add1.o "$RT" -lm -lpthread -o use1 || fail "link without ld"
  [ "$(./use1)" = "9 4" ] || fail "run without ld: $(./use1)"
  # A linker that fails is an internal error (exit 4), never a bad object.
  TK_LD=/bin/false expect_rc 4 "$TKC" add.tk -I inc --target=x86_64 -o add2.o
  grep -q "joining the exports' objects: /bin/false -r failed" err.txt || fail "linker failure message: $(cat err.txt)"
  [ ! -e add2.o ] || fail "an object written after the linker failed"
  for bad in -j0 -jx --jobs=300 --jobs=; do
    expect_rc 2 "$TKC" add.tk -I inc $bad
    grep -q "is not a thread count for -j (1 to 256)" err.txt || fail "$bad: $(cat err.txt)"
  done
  expect_rc 2 "$TKC" add.tk -I inc -j
  grep -q "missing argument to '-j'" err.txt || fail "-j without a count: $(cat err.txt)"
  ;;
explain_cli)
  # `tkc explain`: the report beside the input by default, diagnostics on
  # stderr as in a compile, a report with the errors (exit 1) for a file
  # that does not compile, none for one that cannot be read.
  expect_rc 0 "$TKC" explain add.tk -I inc --target=x86_64 --hw=zen5-2c
  [ -s add.html ] || fail "no add.html"
  grep -q '<section class="export" id="export-scale">' add.html || fail "export scale missing"
  grep -q '<section class="export" id="export-add">' add.html || fail "export add missing"
  expect_rc 1 "$TKC" explain bad.tk -o bad-report.html
  grep -q "bad.tk:2:.*error" err.txt || fail "error not on stderr: $(head -3 err.txt)"
  grep -q 'class="diag-error"' bad-report.html || fail "error not in the report"
  expect_rc 1 "$TKC" explain missing.tk
  [ ! -e missing.html ] || fail "a report for an unreadable input"
  expect_rc 2 "$TKC" explain - <add.tk
  grep -q "name the report with -o FILE" err.txt || fail "stream message: $(cat err.txt)"
  expect_rc 0 "$TKC" explain - -o - -I inc --hw=zen5-2c <add.tk
  grep -q '^<!DOCTYPE html>' out.txt || fail "no report on stdout"
  "$TKC" --help | grep -q 'tkc explain' || fail "--help does not mention tkc explain"
  ;;
*) fail "unknown case" ;;
esac
echo "ok: $CASE"
