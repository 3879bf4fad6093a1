#!/usr/bin/env bash
# tensor_core_ptx.sh TKC SOURCE_DIR: PTX structure of the tensor-core matmul
# template stdlib/gpu/matmul_tc.tk (no CUDA toolkit needed): per kernel and
# per k16 step, 2 ldmatrix.x4 (A) + 4 ldmatrix.x2.trans (B) + 8 mma.sync
# with the f16 or bf16 operand types and f32 accumulators, unrolled over the
# two k16 steps of a 32-wide K slice; the two-stage cp.async pipeline
# (16-byte copies for the prologue and the next slice, one commit each, one
# wait_group 1), the double-buffered shared stages and the barriers.
set -u
TKC=$1 SRC=$2
. "$(dirname "$0")/ptx_test_lib.sh"

for sm in sm_80 sm_90; do
  "$TKC" "$SRC/stdlib/gpu/matmul_tc.tk" --target=cuda-$sm --emit=ptx -o "$WORK/tc.ptx" || fail "tkc $sm"
  for k in f16 bf16; do
    awk "/\\.entry matmul_${k}_k0\\(/,/^}/" "$WORK/tc.ptx" > "$WORK/$k.ptx"
    [ -s "$WORK/$k.ptx" ] || fail "no entry matmul_${k}_k0 for $sm"
    grep -q '^\.maxntid 128, 1, 1$' "$WORK/$k.ptx" || fail "matmul_$k: expected .maxntid 128"
    expect "$WORK/$k.ptx" "mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.$k\.$k\.f32" 16
    expect "$WORK/$k.ptx" 'ldmatrix\.sync\.aligned\.m8n8\.x4(\.shared)?\.b16' 4
    expect "$WORK/$k.ptx" 'ldmatrix\.sync\.aligned\.m8n8\.x2\.trans(\.shared)?\.b16' 8
    expect "$WORK/$k.ptx" 'cp\.async\.ca\.shared\.global \[%rd?[0-9]+\], \[%rd[0-9]+\], 16;' 8
    expect "$WORK/$k.ptx" 'cp\.async\.commit_group;' 2
    expect "$WORK/$k.ptx" 'cp\.async\.wait_group 1;' 1
    expect "$WORK/$k.ptx" 'bar\.sync' 2
    grep -q "ld\.local\|st\.local" "$WORK/$k.ptx" && fail "matmul_$k: fragments in local memory for $sm"
  done
  grep -qE '\.shared \.align 16 \.b8 matmul_f16_k0_As\[10240\];' "$WORK/tc.ptx" || fail "As stages ($sm)"
  grep -qE '\.shared \.align 16 \.b8 matmul_f16_k0_Bs\[9216\];' "$WORK/tc.ptx" || fail "Bs stages ($sm)"
done
# The statements exist only in cuda kernels: a cpu target rejects them at the source.
cat > "$WORK/cpu.tk" <<'TK'
op mm(A: f16[M, K], B: f16[K, N]) -> C: f32[M, N] { C[i, j] = sum(k) f32(A[i, k]) * f32(B[k, j]); }
kernel k implements mm on cpu {
  for (i, j) in spatial(M, N) on cores { C[i, j] = 0; mma(C, A, B); }
}
TK
"$TKC" "$WORK/cpu.tk" -o "$WORK/cpu.o" 2>"$WORK/err" && fail "cpu kernel with mma compiled"
grep -q "cpu.tk:3:.*'mma' is a GPU instruction and exists only in cuda kernels" "$WORK/err" || { cat "$WORK/err"; fail "located error"; }
echo "ok: tensor-core PTX structure for sm_80 and sm_90"
