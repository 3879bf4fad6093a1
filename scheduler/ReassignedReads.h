// ReassignedReads: value semantics for statements that re-assign a tensor
// and read it at another element, before any schedule computes in place.
//
// An op's statements run in order and each one evaluates its whole
// right-hand side before writing its target (docs/language.md §3.1, the
// reference interpreter). A schedule stores element by element, so
// `Y[i] = Y[i - 1] else 0` computed in place reads elements it has already
// overwritten (and, across cores, races). Every statement that reads its
// own target at an element that is not provably the one it writes
// therefore reads the previous value from a buffer of its own.
#pragma once
#include "ir/TensorIR.h"

namespace tk {

// Whether statement `a` may not be computed in place: its value reads its
// target other than at exactly the element it writes (indices provably
// equal to the statement's index variables, outside any reduction —
// a reduction over the target is conservatively never in place).
bool readsTargetElsewhere(const ir::Assign &a);

// Takes a verified op. Returns it unchanged when no statement
// readsTargetElsewhere; otherwise a copy in which the version of each such
// statement's target that the statement reads lives in a fresh
// intermediate (`Y_prev`, same dtype and shape): the earlier statements
// that assign that version, and every read of it, use the fresh tensor
// instead, and the statement reads it while writing its own target. No
// copy is added: the previous version is simply stored elsewhere. The
// final version of every tensor (what an output returns) stays in the
// tensor itself.
ir::OpPtr separateReassignedReads(const ir::OpPtr &op);

} // namespace tk
