#!/bin/sh
# Fuzzes the whole frontend (tk::buildModule) with AFL++ for DURATION seconds
# (default 600):
#   tests/fuzz/run-afl.sh [DURATION] [BUILD_DIR]
# Configures BUILD_DIR (default ./build-fuzz) with AFL++'s classic afl-g++ /
# afl-gcc and -DTK_FUZZ=ON, builds only tk_fuzz_frontend there (tk_ir,
# tk_parser, tk_frontend instrumented), and runs afl-fuzz with the
# tests/fuzz/tk.dict dictionary, writing findings to BUILD_DIR/findings.
# Seeds (BUILD_DIR/seeds): tests/fuzz/corpus plus every .tk file of
# tests/diag (one per error path), tests/golden, stdlib and examples.
# RESUME=1 resumes a previous run in that directory (afl-fuzz -i -).
# JOBS (default 2) sets the build parallelism.
# After fixing a crash or hang from findings/default/{crashes,hangs},
# minimize it with afl-tmin and add it to tests/fuzz/regressions/.
set -eu
DURATION=${1:-600}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${2:-$SRC/build-fuzz}
export AFL_QUIET=1
cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTK_BUILD_BENCH=OFF \
  -DCMAKE_CXX_COMPILER=afl-g++ -DCMAKE_C_COMPILER=afl-gcc -DTK_FUZZ=ON >/dev/null
nice -n 19 cmake --build "$BUILD" --target tk_fuzz_frontend -j"${JOBS:-2}"
HARNESS=$BUILD/bin/tk_fuzz_frontend
OUT=$BUILD/findings
INPUT=$BUILD/seeds
rm -rf "$INPUT" && mkdir -p "$INPUT"
cp "$SRC"/tests/fuzz/corpus/* "$INPUT"/
for f in "$SRC"/tests/diag/*.tk "$SRC"/tests/golden/*.tk "$SRC"/stdlib/std/*.tk $(find "$SRC/examples" -name '*.tk'); do
  cp "$f" "$INPUT/$(echo "${f#"$SRC"/}" | tr / _)"
done
if [ "${RESUME:-0}" = 1 ]; then INPUT=-; fi
# @@: the harness reads the input file AFL names; -t: per-input time limit (ms).
AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
  nice -n 19 afl-fuzz -V "$DURATION" -t 2000 -m none -x "$SRC/tests/fuzz/tk.dict" \
  -i "$INPUT" -o "$OUT" -- "$HARNESS" @@
echo "crashes: $(ls "$OUT/default/crashes" 2>/dev/null | grep -vc README || true)"
echo "hangs:   $(ls "$OUT/default/hangs" 2>/dev/null | grep -vc README || true)"
