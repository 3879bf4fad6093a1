// Cache hints from the loop IR. Streaming stores: a register tile whose
// output is marked `stream` (written once, larger than the cores' private
// caches) writes its whole vectors with non-temporal stores, which skip
// the read for ownership and leave the caches to the operands; the fence
// that orders them is added where the functions that issued them return.
// Prefetches: a `prefetch` statement fetches one cache line into L2.
#pragma once
#include "backends/x86/CodegenContext.h"

#include <vector>

namespace tk::x86 {

// One vector of a register tile's results: its value, where it goes and
// which lanes are stored.
struct TileResult {
  llvm::Value *value, *address, *mask;
};

// Stores `results`: those whose mask is a constant all-true vector
// non-temporally when all their addresses are vector-aligned (tested at run
// time: a non-temporal vector store to an unaligned address faults), the
// others, and all of them otherwise, with masked stores of alignment
// `align`. Records the current function as streaming when it may stream.
void emitStreamedTileStores(CodegenContext &cg, const std::vector<TileResult> &results, llvm::Align align);

// A store fence when the current function issued non-temporal stores:
// they are weakly ordered, and whoever synchronizes with this function's
// end (the thread pool's join, the caller) must see them. Once per function
// return, not per tile (a fence per tile cost 7% at 4096 x 64 x 4096).
void emitStreamFence(CodegenContext &cg);

// A prefetch of the cache line holding `addr`: for reading, into L2
// (prefetcht1: a block read soon), or for writing, into L1 (prefetchw: a
// register tile's output right before its stores).
void emitLinePrefetch(CodegenContext &cg, llvm::Value *addr, bool forWriting);

// A Prefetch statement: a read prefetch of the line holding its element.
// The address is computed without `inbounds`, and a prefetch never faults.
void emitPrefetch(CodegenContext &cg, const ir::LStmt &s);

} // namespace tk::x86
