#!/bin/sh
# Dynamic-shape sweep of the construction optimizer: 50 random shapes (25
# matmul, 25 conv2d; fixed seed), each constructed in a fresh tkc process
# (`--emit=mapping` of the hole kernels in tests/e2e/construct_holes.tk with
# --shape-hint). Prints the total and per-process wall time.
#   bench/construct_sweep.sh [TKC] [HW]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
tkc=${1:-$here/build/bin/tkc}
hw=${2:-zen5-2c}
src=$here/tests/e2e/construct_holes.tk
awk 'BEGIN { srand(5); for (i = 0; i < 25; i++) {
  printf "M=%d K=%d N=%d\n", 1 + int(rand() * 4096), 1 + int(rand() * 4096), 1 + int(rand() * 4096);
  printf "N=%d C=%d H=%d W=%d F=%d R=3 S=3 stride=%d\n", 1 + int(rand() * 64), 1 + int(rand() * 512),
         7 + int(rand() * 220), 7 + int(rand() * 220), 1 + int(rand() * 512), 1 + int(rand() * 2) } }' > /tmp/tk_sweep_shapes.$$
start=$(date +%s.%N)
while read -r shape; do
  set --
  for kv in $shape; do set -- "$@" "--shape-hint=$kv"; done
  "$tkc" "$src" --emit=mapping --hw="$hw" "$@" > /dev/null
done < /tmp/tk_sweep_shapes.$$
end=$(date +%s.%N)
rm -f /tmp/tk_sweep_shapes.$$
echo "50 shapes, $hw: total $(echo "$end - $start" | bc) s, $(echo "($end - $start) / 50" | bc -l | cut -c1-6) s per process (6 kernels constructed each)"
