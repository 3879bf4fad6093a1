// StageThroughLdm: the CPEs of a Sunway core group have no data cache;
// main memory is read and written efficiently only by DMA into each CPE's
// LDM. This pass gives every parallel loop over the CPEs LDM buffers for
// the main-memory tensors it accesses, following swTVM (docs/sunway.md,
// "Staging through LDM"):
//   - lets are inlined and every loop whose variable indexes a tensor and
//     whose extent is not a small constant is strip-mined into blocks of B
//     iterations (the buffer iterators);
//   - each tensor gets the outermost loop level at which the box of
//     elements one iteration accesses has a constant bound that fits its
//     share of the LDM; a get before that level's body, a put after it for
//     a tensor it writes (only when some store there writes every element
//     of the box, so the put never overwrites an element another CPE
//     writes); every access of it there reads or writes the buffer;
//   - B is the largest power of two (<= 512) for which every staged tensor
//     fits (swTVM's LDM sizing, growing from small blocks), or, double-
//     buffered, a smaller one that gives more boxes a second buffer;
//   - with `doubleBuffer`, a read-only box at a serial loop level gets a
//     second buffer where the LDM has room: the next iteration's box is
//     fetched (asynchronous DMA) while this one's is used;
//   - with `broadcast`, a read-only box at a loop level that every CPE
//     reaches alike (no bound or condition on the way, nor the box, depends
//     on the CPE) is shared: CPE 0 fetches it for all with one broadcast
//     get, between array barriers (TileOutputs' lockstep rounds);
//   - with `rowBroadcast` too, one that depends on the CPE through its row
//     of the 8 x 8 array alone is fetched by the row's first CPE for the
//     row (row broadcast), and one that depends on it through its column
//     alone becomes, where the LDM has room, the union of the 8 columns'
//     boxes, fetched once for all (TileOutputs' 8 x 8 rounds).
// A tensor with no such level (an access that is not affine in the loops,
// two dimensions indexed by one loop) stays in main memory, read and
// written directly, which is correct and slow. Loops with a barrier are
// left as written (CPEs exchange data through main memory there).
#pragma once
#include "ir/LoopIR.h"

#include <cstdint>

namespace tk {

// `f` with its CPE loops staged through LDM buffers of at most `ldmBytes`
// bytes per CPE in all. Requires f lowered for sunway (after
// InsertRuntimeChecks).
ir::LoweredFunc stageThroughLdm(const ir::LoweredFunc &f, int64_t ldmBytes, bool doubleBuffer, bool broadcast,
                                bool rowBroadcast = false);

} // namespace tk
