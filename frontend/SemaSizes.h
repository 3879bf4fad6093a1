// SemaSizes: the sizes of every tensor a module declares (op inputs,
// outputs, intermediates, kernel locals), checked at compile time where
// their extents are constants (ir/TensorSize.h): a tensor beyond 2^47 bytes
// (whose byte count may also wrap int64) and a `register`/`local` tensor
// beyond the 1 MiB a thread's stack gives it are located errors, and so is
// a task mapping whose constant task shape or worker count overflows
// int64. Sizes
// with symbols are checked by the generated code before allocating
// (status 3, docs/abi.md).
#pragma once
#include "ir/Diagnostics.h"
#include "ir/Module.h"

namespace tk::sema {

// Reports each tensor (and task mapping) of `m` whose size is refused;
// returns false if any.
bool checkTensorSizes(const ir::Module &m, DiagEngine &diags);

} // namespace tk::sema
