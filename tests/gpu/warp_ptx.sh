#!/usr/bin/env bash
# warp_ptx.sh TKC SOURCE_DIR: PTX of the warp shuffles and atomics (no CUDA
# toolkit needed; the automatic "gpu: ptxas gpu/warp_reduce" tests assemble
# it). stdlib/gpu/warp_reduce.tk: five butterfly shuffles per reduction in
# the one-warp-per-row kernels and no barrier or shared memory there; the
# block sum's shfl.sync.down, shared and global f32 atomics; the histogram's
# i32 global atomic. A shared i32 atomic and shfl.sync.up/idx from a small
# kernel; shuffles and atomics rejected at the source for a cpu target.
set -u
TKC=$1 SRC=$2
. "$(dirname "$0")/ptx_test_lib.sh"

for sm in sm_80 sm_90; do
  "$TKC" "$SRC/stdlib/gpu/warp_reduce.tk" --target=cuda-$sm --emit=ptx -o "$WORK/w.ptx" || fail "tkc $sm"
  f=$(entry "$WORK/w.ptx" row_sum_warp_k0)
  expect "$f" 'shfl\.sync\.bfly\.b32.*, (16|8|4|2|1), 31, -1;' 5
  expect "$f" 'bar\.sync|\.shared' 0
  for k in softmax_warp_k0 layernorm_warp_k0; do
    f=$(entry "$WORK/w.ptx" $k)
    expect "$f" 'shfl\.sync\.bfly\.b32.*, (16|8|4|2|1), 31, -1;' 10
    expect "$f" 'bar\.sync' 0
  done
  f=$(entry "$WORK/w.ptx" total_atomic_k1)
  expect "$f" 'shfl\.sync\.down\.b32.*, (16|8|4|2|1), 31, -1;' 5
  expect "$f" 'atom\.shared\.add\.f32' 1
  expect "$f" 'atom\.global\.add\.f32' 1
  expect "$f" 'bar\.sync' 2
  f=$(entry "$WORK/w.ptx" histogram_atomic_k1)
  expect "$f" 'atom\.global\.add\.u32 .*, 1;' 1
done

cat > "$WORK/small.tk" <<'TK'
op cnt(Z: i32[N]) -> C: i32[N] { C[j] = Z[j]; }
kernel k implements cnt on cuda {
  for (b) in spatial(cdiv(N, 32)) on blocks {
    shared h: i32[32];
    for (t) in spatial(32) on threads { h[t] = 0; }
    sync;
    for (t) in spatial(32) on threads {
      register v: i32[1];
      v[0] = shfl_up(Z[b*32 + t], 1) + shfl_idx(Z[b*32 + t], t / 2);
      atomic_add(h[(t + 1) % 32], v[0]);
    }
    sync;
    for (t) in spatial(32) on threads { C[b*32 + t] = h[t]; }
  }
}
TK
"$TKC" "$WORK/small.tk" --target=cuda-sm_80 --emit=ptx -o "$WORK/s.ptx" || fail "tkc small"
f=$(entry "$WORK/s.ptx" k_k0)
expect "$f" 'atom\.shared\.add\.u32' 1
expect "$f" 'shfl\.sync\.up\.b32.*, 1, 0, -1;' 1
expect "$f" 'shfl\.sync\.idx\.b32.*, 31, -1;' 1

cat > "$WORK/cpu.tk" <<'TK'
op rs(X: f32[M, N]) -> Y: f32[M] { Y[i] = sum(j) X[i, j]; }
kernel k implements rs on cpu {
  for (i) in spatial(M) on cores { Y[i] = shfl_xor(X[i, 0], 1); }
}
TK
"$TKC" "$WORK/cpu.tk" -o "$WORK/cpu.o" 2>"$WORK/err" && fail "cpu kernel with a shuffle compiled"
grep -q "cpu.tk:3:43: error: 'shfl_xor' is a GPU instruction and exists only in cuda kernels" "$WORK/err" ||
  { cat "$WORK/err"; fail "located error"; }
echo "ok: warp shuffle and atomic PTX for sm_80 and sm_90"
