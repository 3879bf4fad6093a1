// The loop-IR "read after write" invariant: every tensor a function reads
// is an input, or has been written before the read. A pass that stops
// storing a buffer while something still reads it (issue 19: row fusion
// recomputing an intermediate in one consumer and dropping its store and
// allocation while another statement still read it) breaks it, and the
// function would read uninitialised memory without any other verifier
// noticing, since op intermediates are always in scope.
#pragma once
#include "ir/LoopIR.h"

#include <set>

namespace tk::ir {

// Walks `f` in program order and throws tk::InternalError, naming the
// function, the tensor and the access's source line:col, at the first load
// of a tensor that is not an input and that no store (or intrinsic writing
// it: mma, ldmatrix, cp_async, atomic_add) precedes, and at the first
// access to an op intermediate or a scratch buffer that no `alloc` of it
// precedes. The check is a
// may-analysis, sound for finding dropped writes and free of false
// alarms on correct code:
//   - a write on any path counts (a store under an `if`, a predicated
//     store, a loop that may run zero times);
//   - inside a loop, a write anywhere in its body counts for every read
//     in it (a value carried from the previous iteration);
//   - an `alloc` starts its tensor unwritten again (each iteration of an
//     enclosing loop gets a fresh buffer);
//   - prefetches are hints and read nothing.
// Tensors in `exempt` are not checked: a user kernel's own outputs and
// locals, whose reads before writes are the author's to make (sema does
// not track them), not a compiler bug.
void verifyReadsWritten(const LoweredFunc &f, const std::set<const TensorDecl *> &exempt = {});

} // namespace tk::ir
