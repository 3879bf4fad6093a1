// PackOperand: copies the part of a contraction operand that one cache tile
// reads into a contiguous per-core panel buffer, so the register tile
// streams it with unit stride instead of walking the original tensor with a
// large row stride (one page per row for a wide B, a new cache line per row
// for A's broadcast column).
#pragma once
#include "ir/MappingIR.h"

namespace tk {

// The buffer is `local` f32/f64 [panels, depth, width]; element (p, d, w)
// holds `operand` with
//   outerVar := outerBase + p * width + w   (the dimension cut into panels)
//   depthVar := depthBase + d               (the reduction dimension)
// substituted. The operand keeps its own guards and `else` values, so a
// panel that sticks out of the tensor holds the padding value (0 for the
// op tensors' implicit bounds), which adds nothing to a sum.
struct PanelSpec {
  std::string buffer;        // name of the local buffer (unique in the kernel)
  int64_t panels = 1, depth = 1, width = 1;
  std::string outerVar;
  ir::Expr outerBase;
  std::string depthVar;
  ir::Expr depthBase;
  // Panels and depth rows the copy fills (null: all): a tile that sticks out
  // of a small tensor copies only the panels and rows it will read.
  ir::Expr livePanels, liveDepth;
  std::string copyVars[3];   // loop variables of the copy (unused elsewhere)
};

struct PackedOperand {
  ir::TensorPtr buffer;
  ir::MStmtPtr alloc; // `local` allocation, visible until the end of its block
  ir::MStmtPtr copy;  // for p in 0..live { for d in 0..live { for w in repeat(width) { buf[p, d, w] = operand' }}}
};

// Requires `operand` to be an f32/f64 expression over loop variables that
// mentions outerVar/depthVar only through those names.
PackedOperand packPanels(const ir::Expr &operand, const PanelSpec &spec, SourceLoc loc);

// for v in 0..end { body } (a serial loop of the current worker).
ir::MStmtPtr seqFor(const std::string &v, ir::Expr end, ir::MStmtPtr body, SourceLoc loc);

// buf[panel, depth, lane]: how the register tile reads a packed operand.
ir::Expr loadPanel(const PackedOperand &p, ir::Expr panel, ir::Expr depth, ir::Expr lane);

} // namespace tk
