#!/usr/bin/env bash
# launch_limits.sh TKC SOURCE_DIR: launches past the default limits, without
# a GPU (gpu_run.c runs them). More than 48 KiB of shared memory per block
# becomes one extern (dynamic) .shared array, up to the --hw description's
# per-block limit (h100, the cuda default: 227 KiB; rtx4090: 99 KiB), and
# more is a located error; 48 KiB or less stays static. A launch whose block
# count is symbolic linearizes blockIdx over x, y, z and skips blocks past
# the count; a constant count below 2^31 keeps the 1-D index.
set -u
TKC=$1 SRC=$2
. "$(dirname "$0")/ptx_test_lib.sh"

"$TKC" "$SRC/tests/gpu/launch_limits.tk" --target=cuda-sm_80 --emit=ptx -o "$WORK/l.ptx" || fail "tkc"
expect "$WORK/l.ptx" '^\.extern \.shared \.align 16 \.b8 reverse_chunks_shared_k0_dynamic_shared\[\];$' 1
expect "$WORK/l.ptx" '\.shared \.align 16 \.b8 reverse_chunks_shared_k0_(s|pad)\[' 0
f=$(entry "$WORK/l.ptx" inc_bytes_blocks_k0)
expect "$f" '%nctaid\.x|%nctaid\.y|%ctaid\.y|%ctaid\.z' 4

# shared(B) KERNEL: a kernel with B floats of shared memory in one launch of
# a constant 4 blocks.
shared() {
  cat <<TK
op cp(A: f32[1024]) -> B: f32[1024] { B[i] = A[i]; }
kernel k implements cp on cuda {
  for (b) in spatial(4) on blocks {
    shared s: f32[$1];
    for (t) in spatial(256) on threads { s[t] = A[b*256 + t]; }
    sync;
    for (t) in spatial(256) on threads { B[b*256 + t] = s[t]; }
  }
}
TK
}
shared 10240 > "$WORK/small.tk"
"$TKC" "$WORK/small.tk" --target=cuda-sm_80 --emit=ptx -o "$WORK/small.ptx" || fail "tkc small"
expect "$WORK/small.ptx" '^\s*\.shared \.align 16 \.b8 k_k0_s\[40960\];$' 1
expect "$WORK/small.ptx" 'dynamic_shared|%nctaid|%ctaid\.y' 0

shared 60000 > "$WORK/huge.tk"
"$TKC" "$WORK/huge.tk" --target=cuda-sm_80 --emit=ptx -o "$WORK/huge.ptx" 2>"$WORK/err" && fail "240000 bytes accepted"
grep -q "huge.tk:3:3: error: this launch declares 240000 bytes of shared memory per block; the hardware allows at most 232448 per block" "$WORK/err" ||
  { cat "$WORK/err"; fail "located error for h100"; }
shared 26000 > "$WORK/mid.tk"
"$TKC" "$WORK/mid.tk" --target=cuda-sm_80 --emit=ptx -o "$WORK/mid.ptx" || fail "104000 bytes on h100"
"$TKC" "$WORK/mid.tk" --target=cuda-sm_80 --hw=rtx4090 --emit=ptx -o "$WORK/mid.ptx" 2>"$WORK/err" &&
  fail "104000 bytes accepted for rtx4090"
grep -q "mid.tk:3:3: error: .* the hardware allows at most 101376 per block" "$WORK/err" ||
  { cat "$WORK/err"; fail "located error for rtx4090"; }
echo "ok: dynamic shared memory and multi-dimensional grids"
