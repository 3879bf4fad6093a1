#!/usr/bin/env bash
# agree_gpu.sh TKC LIBTKRT_CUDA LIBTKRT SOURCE_DIR CC: runs gpu_run and
# ops_run (on the driver TK_CUDA_DRIVER names: the PTX executor in ctest),
# hashes every output they check, and compares the hashes with those a GPU (an H200)
# gave for the same PTX (gpu_outputs.txt). Outputs of kernels built only
# from exactly rounded instructions must be identical bit for bit; those
# computed with ex2.approx (exp, tanh, softmax and what uses them) or
# tensor-core mma (whose accumulation order NVIDIA does not document) may
# differ, and gpu_run/ops_run check them against references within
# tolerance. A case whose module's PTX has changed since the recording is
# not compared (and said so); with none left, the test is skipped (77).
# Re-record on a GPU: TK_GPU_OUTPUT_HASHES=FILE ./gpu_run --no-huge-grid;
# ./ops_run (tests/gpu/bundle.sh), and the ptx lines as below.
set -u
TKC=$1 RT=$2 RTCPU=$3 SRC=$4 CC=$5
HERE=$(cd "$(dirname "$0")" && pwd)
OUTS=$(mktemp) PTX=$(mktemp)
trap 'rm -f "$OUTS" "$PTX"' EXIT
grep '^ptx' "$HERE/gpu_outputs.txt" | while IFS=$'\t' read -r _ mod file _; do
  printf 'ptx\t%s\t%s\n' "$mod" "$("$TKC" "$SRC/$file" --target=cuda --emit=ptx -o - 2>/dev/null | sha256sum | cut -c1-16)"
done > "$PTX"
export TK_GPU_OUTPUT_HASHES=$OUTS
bash "$HERE/gpu_run.sh" "$TKC" "$RT" "$SRC" "$CC" --no-huge-grid >/dev/null || { echo "gpu_run failed"; exit 1; }
bash "$HERE/ops_run.sh" "$TKC" "$RT" "$RTCPU" "$SRC" "$CC" >/dev/null 2>&1 || { echo "ops_run failed"; exit 1; }
awk -F'\t' '
  # The module a case of gpu_run or ops_run comes from.
  function module(c) {
    if (c ~ /^matmul [0-9]/) return "linalg"
    if (c ~ /^matmul_simt /) return "matmul_simt"
    if (c ~ /^matmul_simt_large /) return "matmul_simt_large"
    if (c ~ /^matmul_(f16|bf16)(_tc_large)? /) return "matmul_tc"
    if (c == "softmax") return "nn"
    if (c == "gelu" || c == "vtanh" || c == "vexp") return "elementwise"
    if (c ~ /^reshape_conv1x1 /) return "fusion"
    if (c ~ /^reverse_chunks_shared/) return "launch_limits"
    return "custom_ops"
  }
  FILENAME == ARGV[1] { if ($1 == "ptx") recorded[$2] = $4; else if ($0 !~ /^#/) { want[$1] = $2; order[++n] = $1 } next }
  FILENAME == ARGV[2] { now[$2] = $3; next }
  { got[$1] = $2 }
  END {
    approx = "^(softmax|gelu|vexp|vtanh|attention|attention_causal|mlp|linear_gelu|gelu_tanh|matmul_f16|matmul_bf16|matmul_f16_tc_large|matmul_bf16_tc_large)( |$)"
    bad = same = differ = stale = 0
    for (i = 1; i <= n; ++i) {
      c = order[i]; m = module(c)
      if (now[m] != recorded[m]) { stale++; printf "not compared %s: the PTX of %s changed since the GPU run\n", c, m; continue }
      if (!(c in got)) { printf "MISSING   %s (the GPU run has it)\n", c; bad++; continue }
      if (got[c] == want[c]) { same++; printf "identical %s\n", c; continue }
      if (c ~ approx) { differ++; printf "differs   %s (approximate instructions; checked against its reference)\n", c; continue }
      printf "DIFFERS   %s: %s here, %s on the GPU\n", c, got[c], want[c]; bad++
    }
    printf "%d identical, %d approximate, %d not compared (PTX changed), %d unexpected\n", same, differ, stale, bad
    exit bad ? 1 : (same + differ == 0 ? 77 : 0)
  }' "$HERE/gpu_outputs.txt" "$PTX" "$OUTS"
