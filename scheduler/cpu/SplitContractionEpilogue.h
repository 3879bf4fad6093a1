// SplitContractionEpilogue: the reverse of FoldContractionConsumer, for the
// contractions whose packed kernel takes no epilogue. A quantized linear
// layer written as one statement,
//   Y[i, j] = i8(max(-128.0, min(127.0, f32(sum(k) i32(A[i, k]) * i32(B[k, j])) * scale)));
// is neither a bare contraction (ConstructByteContraction) nor an f32 one
// with an epilogue (ConstructSchedule), so it would get the default
// schedule: 0.09× oneDNN for the product alone. Split as
//   t[i, j] = sum(k) i32(A[i, k]) * i32(B[k, j]);
//   Y[i, j] = i8(max(-128.0, min(127.0, f32(t[i, j]) * scale)));
// ConstructStages builds the sum as a packed stage and the requantization
// as an element-wise one.
#pragma once
#include "ir/TensorIR.h"

namespace tk {

// Takes a verified op of one statement whose value holds exactly one
// reduction, not as the whole value. Returns the op with that statement
// split in two: the reduction stored into a new intermediate over the
// target's extents (in the reduction's type), then the value reading it at
// the statement's own index variables. Null when `op` is not of that form.
ir::OpPtr splitContractionEpilogue(const ir::OpPtr &op);

} // namespace tk
