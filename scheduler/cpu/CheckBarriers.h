// CheckBarriers: where a `sync` can stand in a cpu kernel.
#pragma once
#include "ir/Diagnostics.h"
#include "ir/MappingIR.h"

namespace tk {

// Takes a verified kernel. On cpu a core runs each task to completion, so
// LowerTaskMappings implements `sync` by splitting a cores mapping into
// parallel loops run one after another. That needs every `sync` inside a
// cores mapping to be a statement of the mapping's body itself (not inside
// an `if`, a loop or a mapping on other workers), and no per-core local
// declared in the body before a `sync` (it would not survive the split).
// Reports each other placement at the user's source; other targets have
// real barriers and are not checked here. Returns false after an error.
bool checkBarriers(const ir::Kernel &k, DiagEngine &diags);

} // namespace tk
