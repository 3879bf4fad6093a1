// FuseTileEpilogues: on Sunway, a reduction whose one reader applies an
// element-wise epilogue to it (conv2d_bias_relu's `O[n, f, y, x] =
// max(mm[n, y, x, f] + bias[f], 0)`) would store its result to main memory
// and DMA it back for the epilogue. Substituted into the reader, the
// reduction becomes the reader's value `max(sum(..) + bias[f], 0)`: one
// statement, whose output tile TileOutputs keeps in LDM across the
// reduction and finishes with the epilogue before the one put.
#pragma once
#include "ir/TensorIR.h"

#include <string>

namespace tk {

// Whether statement `index` of `op` can be substituted into its reader: its
// target is an intermediate it writes whole, its value one reduction in
// the target's type (or an element-wise function of one); the next
// statement is the only one that reads the target, once, without `else`,
// at an index that is its own variables in some order (a bijection onto the
// target), and has no reduction of its own. Says why not in `reason`.
bool fuseTileEpilogueApplies(const ir::Op &op, size_t index, std::string *reason);

// `op` with every statement fuseTileEpilogueApplies to, whose reduction
// has the floating type of its reader's target (TileOutputs accumulates
// there), substituted into its reader and removed, with its intermediate;
// `op` itself when there is none.
ir::OpPtr fuseTileEpilogues(const ir::OpPtr &op);

} // namespace tk
