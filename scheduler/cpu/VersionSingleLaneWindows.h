// VersionSingleLaneWindows: a window reduction whose output row may hold a
// single element — global pooling, whose 7 x 7 window yields a 1 x 1 output
//   for r { for s { for x in 0..E { T[.., x] = T[.., x] (+, max, min) X[.., r + .., s + x] }}}
// — runs its window loops along x, so the vector lanes along x hold one
// element each step. Where E is not a constant, the nest becomes
//   if (E == 1) { for x in 0..E { for r { for s { the same store }}}} else { the nest }
// (the row's initialising loop right before the nest in both versions)
// and in the first version the innermost loop runs along memory: a
// reduction into one element, which the x86 backend vectorizes
// (VectorReduction.h). Measured on the global 7 x 7 average pools of
// ResNet-50 and MobileNet-V2 (docs/performance.md, "Every stride and the
// wide sweep").
#pragma once
#include "ir/LoopIR.h"

namespace tk {

// `f` with every such nest versioned. A nest qualifies when it is a
// perfect nest of serial loops whose innermost loop x has a non-constant
// extent, whose body is one accumulating store T = T op V (op +, max or
// min; the first operand reading the stored element) that moves with x and
// with no outer loop of the nest, and V is a load that moves with x too
// and whose last index has unit stride along the loop just outside x. Requires verified loop IR.
ir::LoweredFunc versionSingleLaneWindows(ir::LoweredFunc f);

} // namespace tk
