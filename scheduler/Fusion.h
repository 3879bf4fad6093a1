// Fusion: Hidet's post-scheduling fusion of an op's statements around its
// anchor (the one reduction statement), for every target.
#pragma once
#include "scheduler/Pipeline.h"

#include <string>
#include <vector>

namespace tk {

// Where fusion stands for one op: which statements are still on their own.
struct FusionState {
  size_t anchor = 0;             // index into op.body of the reduction statement
  std::vector<size_t> live;      // statements not fused away (anchor included), in order
  std::vector<size_t> prologues; // statements inlined into the anchor so far
  ir::TensorPtr result;          // what the anchor stores, after the epilogues fused so far
};

// Whether statement `producer` (an index into op.body) can be inlined into
// the anchor's loads (a prologue): it must be injective (no reduction),
// write an intermediate that it alone assigns, and be read by the anchor
// (directly or through fused prologues) and by no other statement; and no
// statement after it, up to the anchor, may assign what it reads (its
// value moves to where the anchor runs). When not, `*reason` (if given)
// says why.
bool prologueApplies(const ir::Op &op, const FusionState &s, size_t producer, std::string *reason);

// Whether statement `consumer` can be applied at the anchor's store of
// s.result (an epilogue): it must be injective, run right after the anchor
// (no statement left in between), and read s.result — an intermediate that
// only the anchor writes and only it reads — at one element, through a
// bijective index map (a permutation or mixed-radix flattening of its own
// index variables, epilogueIndexMap in EpilogueIndexMap.h), whose inverse
// gives the consumer's element for each element the anchor stores. The
// consumer may not read the tensor it writes, nor may the anchor, its
// fused prologues or the epilogues fused before (the consumer then writes
// while they run). When not, `*reason` says why.
bool epilogueApplies(const ir::Op &op, const FusionState &s, size_t consumer, std::string *reason);

// Takes a checked kernel. When it is the default schedule of an op with
// several statements and exactly one of them is a reduction (the anchor),
// returns a copy in which:
//   - prologues (statements the anchor reads) are inlined into the anchor's
//     loads, and their statements and intermediates removed;
//   - epilogues (statements reading what the anchor writes) are applied at
//     the anchor's stores through the inverse index map, T[idx] = v becoming
//     E[inv(idx)] = g(v); when the anchor's schedule accumulates in memory
//     (an identity store, then `+=`), the epilogue instead runs in the
//     anchor's task right after the accumulation, over the identity store's
//     loop nest.
// Each candidate that cannot be fused draws a warning at its statement
// saying why (appended to `deferred` instead, when given), and stays a
// statement of its own. Other kernels are returned unchanged.
struct FusionRefusal {
  SourceLoc loc;                       // the statement that stayed apart
  const ir::TensorDecl *stmt, *anchor; // what it writes; what the anchor writes
  std::string message;
};
ir::KernelPtr fuseStatements(const ir::KernelPtr &k, DiagEngine &diags, std::vector<FusionRefusal> *deferred = nullptr);

// Whether a later pass put the stores of `a` and `b` in one top-level
// statement of k's body (one loop nest), or stopped storing either: a
// refused fusion that the target's own fusion achieved (cpu row fusion of
// RMSNorm's broadcast) is not reported.
bool fusedTogether(const ir::Kernel &k, const ir::TensorDecl *a, const ir::TensorDecl *b);

} // namespace tk
