#!/usr/bin/env bash
# LoopTune end to end (docs/looptune.md): usage roundtrip.sh CASE TKC DIFFTEST SRC_DIR
#   tune_search   tkc tune with a search baseline writes a record per export
#   tune_policy   tkc tune with the shipped policy (the default) does too
#   same_code     two builds with the records give identical LLVM IR, and the
#                 tuned loop IR differs from the default schedule's
#   correctness   every tuned export matches the reference interpreter (tk_difftest)
#   bad_records   a wrong version and an unknown action are located errors
set -u
case_=$1 tkc=$2 difftest=$3 src=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ops=$src/tests/looptune/tuned_ops.tk
fail() { echo "FAIL: $*"; exit 1; }
syms="mm conv rowsum rowmax axpb"
tune() { "$tkc" tune --search=greedy1 --budget=0.2 "$ops" -o "$work/r.tkr" 2>"$work/log" || fail "tkc tune: $(cat "$work/log")"; }

case $case_ in
tune_search)
  tune
  head -1 "$work/r.tkr" | grep -qx 'tkc-tuning-records 1' || fail "header"
  for s in $syms; do grep -q "^$s [0-9a-f]\{16\} greedy1 " "$work/r.tkr" || fail "no record for $s"; done ;;
tune_policy)
  "$tkc" tune "$ops" -o "$work/p.tkr" 2>"$work/log" || fail "tkc tune: $(cat "$work/log")"
  for s in $syms; do grep -q "^$s [0-9a-f]\{16\} policy " "$work/p.tkr" || fail "no record for $s"; done ;;
same_code)
  tune
  "$tkc" --tuning-records="$work/r.tkr" --emit=llvm "$ops" -o "$work/a.ll" || fail "build 1"
  "$tkc" --tuning-records="$work/r.tkr" --emit=llvm "$ops" -o "$work/b.ll" || fail "build 2"
  cmp -s "$work/a.ll" "$work/b.ll" || fail "two builds with the same records differ"
  "$tkc" --tuning-records="$work/r.tkr" --emit=loop "$ops" > "$work/t.loop" || fail "emit loop"
  "$tkc" --emit=loop "$ops" > "$work/d.loop" || fail "emit default loop"
  cmp -s "$work/t.loop" "$work/d.loop" && fail "records did not change the loop IR" ;;
correctness)
  tune
  printf '#!/bin/sh\nexec "%s" --tuning-records="%s" "$@"\n' "$tkc" "$work/r.tkr" > "$work/tkc-tuned"
  chmod +x "$work/tkc-tuned"
  for s in $syms; do
    "$difftest" --tkc "$work/tkc-tuned" --work "$work/dt-$s" "$ops" "$s" > "$work/dt.log" 2>&1 ||
      fail "tk_difftest $s: $(tail -5 "$work/dt.log")"
  done ;;
bad_records)
  printf 'tkc-tuning-records 7\n' > "$work/v.tkr"
  "$tkc" --tuning-records="$work/v.tkr" "$ops" -o "$work/x.o" 2>"$work/e1" && fail "accepted version 7"
  grep -q 'v.tkr:1:20: error: unsupported tuning-records version' "$work/e1" || fail "version: $(cat "$work/e1")"
  printf 'tkc-tuning-records 1\nmm 0123456789abcdef greedy1 1 1 twirl\n' > "$work/a.tkr"
  "$tkc" --tuning-records="$work/a.tkr" "$ops" -o "$work/x.o" 2>"$work/e2" && fail "accepted an unknown action"
  grep -q "a.tkr:2:33: error: unknown action 'twirl'" "$work/e2" || fail "action: $(cat "$work/e2")" ;;
*) fail "unknown case $case_" ;;
esac
echo ok
