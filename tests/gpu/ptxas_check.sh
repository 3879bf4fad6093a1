#!/usr/bin/env bash
# ptxas_check.sh TKC PTXAS FILE.tk SM: compiles FILE for cuda-SM, assembles
# the PTX with `ptxas -arch=SM -v` and fails when ptxas rejects it or any
# kernel has a stack frame or spills registers to local memory. Exits 77
# (skipped) when ptxas is not installed.
set -u
TKC=$1 PTXAS=$2 SRC=$3 SM=$4
if ! command -v "$PTXAS" >/dev/null 2>&1; then
  echo "SKIP: ptxas not found (install the CUDA toolkit or put ptxas on PATH)"
  exit 77
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$TKC" "$SRC" --target=cuda-$SM --emit=ptx -o "$WORK/k.ptx" || { echo "FAIL: tkc"; exit 1; }
"$PTXAS" -arch=$SM -v "$WORK/k.ptx" -o "$WORK/k.cubin" 2>"$WORK/log" || { cat "$WORK/log"; echo "FAIL: ptxas"; exit 1; }
kernels=$(grep -c "Compiling entry function" "$WORK/log")
[ "$kernels" -gt 0 ] || { cat "$WORK/log"; echo "FAIL: no kernels"; exit 1; }
bad=$(grep "bytes stack frame" "$WORK/log" | grep -v "^ *0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads")
if [ -n "$bad" ]; then
  cat "$WORK/log"
  echo "FAIL: local memory use (stack frame or spills) in $SRC for $SM"
  exit 1
fi
echo "ok: $kernels kernels of $(basename "$SRC") assemble for $SM without local memory"
