// Invariants of the tensor IR as the frontend hands it over (compiler bugs,
// not user errors): variables bound, tensors known, ranks consistent, no
// holes. Throws tk::InternalError on the first violation.
#pragma once
#include "ir/TensorIR.h"

namespace tk::ir {

void verifyTensorIR(const Op &op);

} // namespace tk::ir
