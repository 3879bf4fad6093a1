// EmitGpuIntrinsic: NVPTX code for the GPU statements of loop IR
// (ir::GpuIntrinsic): `mma` -> mma.sync.aligned.m16n8k16.row.col (f16 or
// bf16 inputs, f32 accumulator); `ldmatrix` / `ldmatrix_trans` ->
// ldmatrix.sync.aligned.m8n8.{x4,x2,x2.trans}.b16 from shared memory;
// `cp_async` -> cp.async.ca.shared.global (4/8/16 bytes), with a
// synchronous, predicated element-wise copy when the source runs past its
// tensor or either address is misaligned; `cp_async_commit` / `_wait` ->
// cp.async.commit_group / cp.async.wait_group.
#pragma once
#include "backends/nvptx/DeviceContext.h"

namespace tk::nvptx {

// Emits one Intrinsic statement at dc's insertion point. Requires what
// SemaIntrinsic checked: operands are Loads of the first element each one
// covers (a fragment of a register tensor, a shared tile or element, a
// global element) or integer constants, and for the warp-collective ones
// every lane of the warp executes the statement.
void emitGpuIntrinsic(DeviceContext &dc, const ir::LStmt &s);

} // namespace tk::nvptx
