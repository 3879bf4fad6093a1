// DeinterleaveStridedRows: an innermost loop that reads a tensor row with a
// constant stride k > 1 along its variable (pooling's and strided
// convolution's `x*2 + s - pad`) makes LLVM's vectorizer emit a gather per
// vector, one element at a time. This pass copies the row once into k
// contiguous phase rows — a unit-stride, fully interleaved copy that
// vectorizes as loads and shuffles — and lets the loop read them with
// unit stride (operand packing for a bad access stride).
#pragma once
#include "ir/LoopIR.h"

namespace tk {

// Takes a CPU loop-IR function after PartitionLoops. For each innermost
// serial or vectorized loop `for x` that stores along x and reads a tensor
// the function never writes at T[row..., k*x + e] (k a constant in 2..8,
// row and e invariant in x), it
//   - allocates a `local` buffer P[k, .., cols] (cols >= cdiv(W, k), W =
//     T's last extent) per parallel task (or around the copy outside
//     parallel loops);
//   - copies the row (PhaseRowCopy.h), P[q, .., j] = T[row..., j*k + q],
//     just inside the innermost enclosing statement that the row depends on
//     (a loop or let binding one of its variables), a parallel loop's body
//     or an `if` branch, whichever is nearest — or, when x's body is one
//     window reduction T' = T' (+) T[..] (a sum, max or min of the read, no
//     product) inside a perfect nest of serial window loops that T' does
//     not move with, above those loops, with one buffer dimension per
//     window loop the row depends on (the backend then keeps T' in
//     registers across the whole window);
//   - reads P[e mod k, .., x + e div k] (floor semantics) instead, with the
//     original read's guard made explicit, so a read outside the row still
//     yields its padding value — or, when every guarded read of the row
//     only says "inside T" and has one constant `else` value, and the
//     columns they reach are expressible over symbols (IndexRange.h), the
//     copy is padded with that value (before the row, after it, and whole
//     rows outside T) and the reads P[.., L + x + e div k] have no guard.
// Loads of the same row at the same place share one buffer. Returns the
// function unchanged when no loop qualifies.
ir::LoweredFunc deinterleaveStridedRows(const ir::LoweredFunc &f);

} // namespace tk
