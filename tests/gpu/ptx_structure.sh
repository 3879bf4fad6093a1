#!/usr/bin/env bash
# ptx_structure.sh TKC SOURCE_DIR: structure of the generated PTX (no CUDA
# toolkit needed): targets and ISA versions, kernel entries with their
# .maxntid, thread/block index registers, static shared memory and bar.sync
# for the hand-written tiled matmul, and the usage errors around --emit=ptx.
set -u
TKC=$1 SRC=$2
. "$(dirname "$0")/ptx_test_lib.sh"

"$TKC" "$SRC/stdlib/gpu/matmul_simt.tk" --target=cuda-sm_80 --emit=ptx -o "$WORK/simt.ptx" || fail "tkc simt"
has "$WORK/simt.ptx" '^\.version 7\.8$'
has "$WORK/simt.ptx" '^\.target sm_80$'
has "$WORK/simt.ptx" '^\.visible \.entry matmul_simt_k0\('
has "$WORK/simt.ptx" '^\.maxntid 256, 1, 1$'
has "$WORK/simt.ptx" '\.shared \.align 16 \.b8 matmul_simt_k0_As\[2048\];'
has "$WORK/simt.ptx" '\.shared \.align 16 \.b8 matmul_simt_k0_Bs\[2048\];'
has "$WORK/simt.ptx" 'st\.shared\.f32'
has "$WORK/simt.ptx" 'ld\.shared'
[ "$(grep -c 'bar\.sync' "$WORK/simt.ptx")" -eq 2 ] || fail "expected the kernel's two syncs as bar.sync"
# The default schedule of std/linalg.tk's matmul has no shared memory and no barrier.
"$TKC" "$SRC/stdlib/std/linalg.tk" --target=cuda-sm_80 --emit=ptx -o "$WORK/linalg.ptx" || fail "tkc linalg"
awk '/\.entry matmul_k0\(/,/^}/' "$WORK/linalg.ptx" > "$WORK/default.ptx"
has "$WORK/default.ptx" '^\.maxntid 256, 1, 1$'
grep -q 'bar\.sync\|\.shared' "$WORK/default.ptx" && fail "default matmul uses shared memory or barriers"
has "$WORK/default.ptx" '%tid\.x'
has "$WORK/default.ptx" '%ctaid\.x'

"$TKC" "$SRC/stdlib/std/nn.tk" --target=cuda-sm_90a --emit=ptx -o "$WORK/nn.ptx" || fail "tkc nn"
has "$WORK/nn.ptx" '^\.version 8\.0$'
has "$WORK/nn.ptx" '^\.target sm_90a$'
# softmax: one row kernel (ConstructRowKernel): blocks of 4 warps, a barrier
# after each of its two reductions.
has "$WORK/nn.ptx" '^\.visible \.entry softmax_k0\('
grep -q 'softmax_k1' "$WORK/nn.ptx" && fail "softmax is not one row kernel"
awk '/\.entry softmax_k0\(/,/^}/' "$WORK/nn.ptx" > "$WORK/softmax.ptx"
has "$WORK/softmax.ptx" '^\.maxntid 128, 1, 1$'
[ "$(grep -c 'bar\.sync' "$WORK/softmax.ptx")" -eq 2 ] || fail "expected softmax's two barriers"
has "$WORK/softmax.ptx" 'shfl\.sync\.bfly'
# With --schedule=default: one launch per statement of the op.
"$TKC" "$SRC/stdlib/std/nn.tk" --target=cuda-sm_90a --schedule=default --emit=ptx -o "$WORK/nn_default.ptx" ||
  fail "tkc nn --schedule=default"
for k in 0 1 2 3 4; do has "$WORK/nn_default.ptx" "^\.visible \.entry softmax_k$k\("; done
grep -q 'softmax_k5' "$WORK/nn_default.ptx" && fail "softmax has more launches than statements"
# conv2d_bias_relu: prologue and epilogue fused into the anchor, one launch
# (docs/fusion.md).
has "$WORK/nn.ptx" '^\.visible \.entry conv2d_bias_relu_k0\('
grep -q 'conv2d_bias_relu_k1' "$WORK/nn.ptx" && fail "conv2d_bias_relu is not fused into one launch"
# A reshape epilogue (tests/e2e/fusion.tk) fuses the same way: one launch.
"$TKC" "$SRC/tests/e2e/fusion.tk" --target=cuda-sm_80 --emit=ptx -o "$WORK/fusion.ptx" || fail "tkc fusion"
has "$WORK/fusion.ptx" '^\.visible \.entry reshape_conv1x1_k0\('
grep -q 'reshape_conv1x1_k1' "$WORK/fusion.ptx" && fail "reshape_conv1x1 is not fused into one launch"
# exp through the hardware approximation, no libdevice calls.
has "$WORK/nn.ptx" 'ex2\.approx'
grep -q 'call\.' "$WORK/nn.ptx" && fail "device code calls functions"

"$TKC" "$SRC/stdlib/std/nn.tk" --target=cuda --emit=ptx -o "$WORK/cuda.ptx" || fail "tkc --target=cuda"
has "$WORK/cuda.ptx" '^\.target sm_90$'

# Usage errors (exit status 2).
"$TKC" "$SRC/stdlib/std/nn.tk" --emit=ptx -o "$WORK/x" 2>"$WORK/err"; [ $? -eq 2 ] || fail "--emit=ptx without a cuda target"
grep -q 'needs a cuda target' "$WORK/err" || fail "ptx message"
"$TKC" "$SRC/stdlib/std/nn.tk" --target=cuda-sm_75 -o "$WORK/x" 2>"$WORK/err"; [ $? -eq 2 ] || fail "unknown cuda target"
grep -q "unknown CUDA target 'cuda-sm_75'" "$WORK/err" || fail "cuda target message"
"$TKC" "$SRC/stdlib/std/nn.tk" --target=cuda --emit=asm -o "$WORK/x" 2>"$WORK/err"; [ $? -eq 2 ] || fail "--emit=asm for cuda"
echo "ok"
