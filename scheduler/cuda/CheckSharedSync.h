// CheckSharedSync: shared-memory races between the threads of a cuda block
// that a missing `sync` leaves (issue 24).
#pragma once
#include "ir/Diagnostics.h"
#include "ir/MappingIR.h"

namespace tk {

// Takes a verified cuda kernel whose holes are filled and whose task
// mappings CheckTaskMappings accepted. Two accesses of a `shared` tensor,
// at least one a write (an atomic_add only against a plain read or
// write), race when two different threads of one block make them to the
// same element with no `sync` between them in the block's program order —
// whichever comes first: a read after a write (a cooperative load read by
// a compute loop under another thread mapping), a read before a write (a
// k loop whose next tile overwrites the one other threads still read), or
// both in one statement. Program order, elements, threads, loop trip counts
// and `if`s are integer sets (scheduler/Presburger.h); every `sync` counts
// as a barrier where it may run.
//
// Reports at the read an error when a race is proven — an example element,
// the two threads, the loop iterations and the parameters — naming the
// write's line and saying that a `sync` is needed between them. When a
// race is possible but not proven (an index or a condition that is not
// affine, a `sync` inside a threads or warps mapping, ldmatrix's lanes
// against a thread of the same warp, isl's budget), a warning says why.
// Returns false after an error.
bool checkSharedSync(const ir::Kernel &k, DiagEngine &diags);

} // namespace tk
