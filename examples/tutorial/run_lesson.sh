#!/usr/bin/env bash
# run_lesson.sh [--check] LESSON [SHAPE...]: builds one lesson of the tkc
# tutorial (docs/tutorial.md), checks it and times it next to tkc's
# automatic schedule and oneDNN.
#
#   LESSON  a number (3 -> examples/tutorial/03_*.tk) or a .tk file
#   SHAPE   matmul lessons (1-7): M K N ...
#           conv2d (8): N C H W F R S stride pad ...
#           softmax (9): M N ...
#           GPU (10): M K N ...
#           default: the lesson's `// shapes:` line, else the driver's own
#   --check correctness only, no timing (what the tests run)
#
# It compiles the lesson with build/bin/tkc, and the same op with no kernel
# (the automatic schedule, from a two-line file that imports the op and
# exports it), links both with the family's C driver (matmul_main.c,
# conv_main.c, softmax_main.c, gpu_main.c) and runs it. Exit status: the
# driver's (1 = a wrong result; 77 = GPU lesson without a CUDA driver).
# Environment:
#   BUILD_DIR       build tree with bin/tkc and lib/ (default: build)
#   CC              C compiler (default: cc)
#   TK_HW           --hw for both compiles of a CPU lesson (default: tkc's, the host)
#   TUTORIAL_OUT    where objects and programs go (default: $BUILD_DIR/tutorial)
#   TK_CUDA_DRIVER  CUDA driver for lesson 10 (default: the PTX executor
#                   $BUILD_DIR/lib/cuda-emu/libcuda.so.1 when it is built)
#   TK_NUM_THREADS, OMP_NUM_THREADS   threads of tkc's runtime and of oneDNN
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build}"
CC="${CC:-cc}"
TKC="$BUILD/bin/tkc"

usage() { echo "usage: $0 [--check] LESSON [SHAPE...]   (LESSON: 1-10 or a .tk file)" >&2; exit 2; }
CHECK=()
[ "${1:-}" = "--check" ] && { CHECK=(--check); shift; }
[ $# -ge 1 ] || usage
LESSON="$1"; shift
if [ ! -f "$LESSON" ]; then
  [[ "$LESSON" =~ ^[0-9]+$ ]] || usage
  match=("$HERE"/$(printf '%02d' "$((10#$LESSON))")_*.tk)
  [ -f "${match[0]}" ] || { echo "run_lesson.sh: no lesson $LESSON in $HERE" >&2; exit 2; }
  LESSON="${match[0]}"
fi
LESSON="$(cd "$(dirname "$LESSON")" && pwd)/$(basename "$LESSON")"
NAME="$(basename "$LESSON" .tk)"

[ -x "$TKC" ] || { echo "run_lesson.sh: $TKC not found (build the compiler first)" >&2; exit 1; }

# What the lesson implements: the driver family, the op the automatic
# schedule compiles, and the kernel(s) to call.
kernel_for() { # kernel_for OP TARGET: the first kernel of the lesson implementing OP on TARGET
  sed -n "s/^kernel[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]\{1,\}implements[[:space:]]\{1,\}$1[[:space:]]\{1,\}on[[:space:]]\{1,\}$2.*/\1/p" \
    "$LESSON" | head -1
}
TARGET=host
DEFINES=()
if grep -q '^kernel.* on cuda' "$LESSON"; then
  FAMILY=gpu TARGET=cuda OP=matmul STD=linalg
  shared="$(kernel_for matmul cuda)"
  tc="$(sed -n 's/^kernel[[:space:]]\{1,\}\([A-Za-z0-9_]*\)[[:space:]]\{1,\}implements[[:space:]]\{1,\}\([A-Za-z0-9_]*\)[[:space:]]\{1,\}on cuda.*/\1 \2/p' \
        "$LESSON" | awk '$2 != "matmul" { print $1; exit }')"
  [ -n "$shared" ] && [ -n "$tc" ] || { echo "run_lesson.sh: $NAME needs a cuda kernel for matmul and one for an f16 op" >&2; exit 2; }
  DEFINES=(-DLESSON_SHARED="$shared" -DLESSON_TC="$tc")
else
  for OP in matmul conv2d softmax; do
    FN="$(kernel_for $OP cpu)"
    [ -n "$FN" ] && break
  done
  [ -n "$FN" ] || { echo "run_lesson.sh: $NAME has no cpu kernel for matmul, conv2d or softmax" >&2; exit 2; }
  case $OP in
    matmul) FAMILY=matmul STD=linalg ;;
    conv2d) FAMILY=conv STD=nn ;;
    softmax) FAMILY=softmax STD=nn ;;
  esac
  DEFINES=(-DLESSON_FN="$FN")
fi

# TK_HW describes a CPU: cuda compiles keep their own default (h100).
HWFLAG=()
HWTAG=default
if [ -n "${TK_HW:-}" ] && [ "$TARGET" = host ]; then HWFLAG=(--hw="$TK_HW"); HWTAG="$(basename "$TK_HW" .hw)"; fi
TFLAGS=(--target="$TARGET" -O3 "${HWFLAG[@]}")
OUT="${TUTORIAL_OUT:-$BUILD/tutorial}/$HWTAG/$NAME"
mkdir -p "$OUT"

# Rebuild only what is older than its inputs.
stale() { # stale OUTPUT INPUT...
  local out="$1"; shift
  [ -e "$out" ] || return 0
  local f; for f in "$@"; do [ "$f" -nt "$out" ] && return 0; done
  return 1
}
# The automatic schedule: the std op exported from a file with no kernel.
printf '// The op with no kernel: tkc schedules it itself.\nimport "std/%s.tk";\nexport %s;\n' "$STD" "$OP" > "$OUT/auto.tk.new"
if cmp -s "$OUT/auto.tk.new" "$OUT/auto.tk"; then rm "$OUT/auto.tk.new"; else mv "$OUT/auto.tk.new" "$OUT/auto.tk"; fi
if stale "$OUT/auto.o" "$OUT/auto.tk" "$TKC"; then
  echo "+ tkc (automatic $OP, no kernel) ${TFLAGS[*]} -> $OUT/auto.o"
  "$TKC" "$OUT/auto.tk" "${TFLAGS[@]}" -o "$OUT/auto.o" --header="$OUT/auto.h"
  touch "$OUT/auto.o" # tkc leaves an unchanged output's time alone; stale() needs it newer
fi
if stale "$OUT/lesson.o" "$LESSON" "$TKC"; then
  echo "+ tkc $NAME.tk ${TFLAGS[*]} -> $OUT/lesson.o"
  "$TKC" "$LESSON" "${TFLAGS[@]}" -o "$OUT/lesson.o" --header="$OUT/lesson.h"
  touch "$OUT/lesson.o"
fi

DRIVER="$HERE/${FAMILY}_main.c"
if [ "$FAMILY" = gpu ]; then
  LIBS=("$BUILD/lib/libtkrt_cuda.a" -ldl -lpthread -lm)
  INC=(-I"$ROOT/backends/nvptx/runtime" -I"$ROOT/backends/nvptx/emulator")
  [ -f "$BUILD/lib/libtkrt_cuda.a" ] || { echo "run_lesson.sh: $BUILD/lib/libtkrt_cuda.a not built" >&2; exit 77; }
  EMU="$BUILD/lib/cuda-emu/libcuda.so.1"
  if [ -z "${TK_CUDA_DRIVER:-}" ] && [ -f "$EMU" ]; then export TK_CUDA_DRIVER="$EMU"; fi
else
  LIBS=(-L"$BUILD/lib" -ltkrt -ldnnl -lpthread -lm)
  INC=()
  [ -f "$BUILD/lib/libtkrt.a" ] || { echo "run_lesson.sh: $BUILD/lib/libtkrt.a not built" >&2; exit 1; }
  # oneDNN's OpenMP threads otherwise keep spinning after each call and
  # take cores from the next implementation timed (bench/ does the same).
  export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
fi
if stale "$OUT/run" "$OUT/lesson.o" "$OUT/auto.o" "$DRIVER" "$HERE/tutorial.h" "$HERE/matmul_common.h" "$0"; then
  echo "+ cc ${FAMILY}_main.c lesson.o auto.o -> $OUT/run"
  "$CC" -O2 -std=c11 -Wall -Wextra -I"$OUT" -I"$HERE" "${INC[@]}" "${DEFINES[@]}" "$DRIVER" \
    "$OUT/lesson.o" "$OUT/auto.o" "${LIBS[@]}" -o "$OUT/run"
fi

sed -n '1s|^// *||p' "$LESSON"
if [ "$FAMILY" != gpu ]; then
  cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
  echo "machine: ${cpu:-unknown CPU}, ${TK_NUM_THREADS:-$(nproc)} threads"
fi
# Without shapes, the lesson's own `// shapes:` line (else the driver's default).
if [ $# -eq 0 ]; then
  read -r -a SHAPES <<< "$(sed -n 's|^// shapes:||p' "$LESSON" | head -1)"
  set -- "${SHAPES[@]}"
fi
# On the PTX executor the run records each launch's counters, which the
# report then shows beside the kernels (tkc explain --counters).
COUNTERS=() STATS=()
if [ "$FAMILY" = gpu ] && [ ${#CHECK[@]} -eq 0 ] && [ -f "${EMU:-}" ] &&
   [ "$(realpath -m "${TK_CUDA_DRIVER:-}")" = "$(realpath "$EMU")" ]; then
  rm -f "$OUT/counters.tsv"
  COUNTERS=(--counters "$OUT/counters.tsv") STATS=(TK_CUDA_EMU_STATS="$OUT/counters.tsv")
fi
status=0
env "${STATS[@]}" "$OUT/run" "${CHECK[@]}" "$@" || status=$?

# The lesson's `tkc explain` report (docs/explain.md): its mappings, loops,
# hot loop and roofline, and on the executor the counters of this run. Not
# written by --check runs (the tests).
if [ ${#CHECK[@]} -eq 0 ]; then
  [ -f "$OUT/counters.tsv" ] || COUNTERS=()
  if [ ${#COUNTERS[@]} -gt 0 ] || stale "$OUT/$NAME.html" "$LESSON" "$TKC"; then
    "$TKC" explain "$LESSON" "${TFLAGS[@]}" "${COUNTERS[@]}" -o "$OUT/$NAME.html" 2>/dev/null ||
      echo "run_lesson.sh: tkc explain $NAME.tk failed" >&2
  fi
  echo "report: $OUT/$NAME.html (open it in a browser)"
fi
exit $status
