// FuseRows: the default schedule of an op with several statements over the
// same rows (softmax, layernorm) as one parallel loop over rows, with its
// element-wise intermediates kept in the output row they become or
// recomputed where they are read.
#pragma once
#include "scheduler/Pipeline.h"

#include <string>

namespace tk {

// Whether the consecutive top-level loops `first..last` (indices into the
// kernel body's statements) can run as one loop over rows: each is a
// one-dimensional `spatial(E) on cores` loop of the same extent E, and
// every access to a tensor that any of them writes (stores and loads)
// indexes that tensor's first dimension with its own loop's row variable,
// so no row reads what another row writes. When not, `*reason` says why.
bool fuseRowsApplies(const ir::MStmt &body, size_t first, size_t last, std::string *reason);

// Takes a checked default-schedule kernel (cpu). Returns a copy in which
// every maximal run of consecutive row loops that fuseRowsApplies accepts
// is one `spatial(E) on cores` loop running the statements in order for
// its row — a row's data is then reused from cache by the next statement —
// and in which an intermediate written by an element-wise statement of the
// fused loop (`T[i, j..] = f`, no reduction, each of its index variables
// once) and read only later in that loop, where nothing f reads is written
// in between, and which nothing else reads or writes (no statement of the
// kernel outside the fused loop, at any row; no earlier statement of it;
// no second store: every reader is accounted for), is not stored as T:
// when f is expensive (a math call or `**`) and T's last reader writes an
// op output O of T's shape at the element it reads (Y[i, j] = e[i, j] *
// inv[i]), T's store and reads become O's (f computed once, updated in
// place); otherwise each read T[i, a..] becomes f at (i, a..). Other
// kernels are returned unchanged.
ir::KernelPtr fuseRows(const ir::KernelPtr &k);

} // namespace tk
