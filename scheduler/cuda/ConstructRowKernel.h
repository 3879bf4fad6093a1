// ConstructRowKernel: the cuda kernel of a row-wise op that has none of its
// own (softmax, layernorm, RMSNorm, row sums and maxima): each row goes to
// one block of warps, as in stdlib/gpu/row_blocks.tk, instead of the
// default schedule's thread per output element, which recomputes a row's
// reductions for every element of it (docs/gpu.md, "Row-wise ops without a
// kernel").
#pragma once
#include "ir/MappingIR.h"

#include <string>

namespace tk {

// Whether `op` is row-wise: every statement writes an f32 tensor whose
// first index runs over one extent M (the rows), either T[i] = g(R(j < N:
// f)) with at most one reduction R (sum, max or min over one variable), or
// T[i, j] = f without a reduction, every N the same; at least one statement
// reduces; each tensor the op writes is written by one statement and read
// only by later ones, at the reading statement's own row (and, for a rank-2
// tensor, its own column), with no `else` value. When not, `*reason` says
// why (when given).
bool rowKernelApplies(const ir::Op &op, std::string *reason);

// Takes an op rowKernelApplies accepts and a number of warps per row (1 to
// 32). Returns the kernel
//   for (row) in spatial(M) on blocks {
//     a shared f32[warps] per reduction, a per-thread register per rank-1 tensor
//     for (warp, lane) in spatial(warps, 32) on threads { statements .. }
//     sync; for (warp, lane) .. { .. } ...
//   }
// in which a thread owns the columns strip*32*warps + warp*32 + lane of its
// row. A reduction accumulates the thread's columns (the identity for the
// columns past N, by a `select`), then five shfl_xor steps combine the warp's lanes, lane 0
// stores the warp's value in shared memory, and after a `sync` every
// thread combines the warps' values into its register; g(..) follows. A
// rank-1 tensor lives in that register (an op output is also stored, by
// thread 0); a rank-2 one is computed where it is read (its reads become its
// value at that column), and stored when it is an op output.
ir::KernelPtr constructRowKernel(const ir::OpPtr &op, int warpsPerRow);

} // namespace tk
