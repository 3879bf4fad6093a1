// PrefetchPanels: the prefetch statements ConstructSchedule's register
// tiles issue at each k step, so that the block of Y a task reads next is
// in L2 by the time it is copied or multiplied (docs/construct.md, "The
// block of B a task reads next is prefetched"). Past the last k block the
// rows run beyond the operand: a prefetch does not fault, and clamping
// them cost the FMA loop a general-purpose register (a spill).
#pragma once
#include "ir/MappingIR.h"

#include <vector>

namespace tk {

// Tasks that pack Y's blocks themselves: k step kk of tile (jr, ir)
// prefetches lines 2 ir and 2 ir + 1 (modulo the lines of a panel row) of
// row `nextRow` of block kb + 1 of column panel jr, which starts at column
// `panelCol`. With two row panels or more, every line of the next block.
// `y` is the operand with its batch indices substituted, `j`/`k` its
// column and depth variables. None when Y is not contiguous along j (B
// transposed: a panel row is then not a run of lines).
std::vector<ir::MStmtPtr> nextBlockPrefetches(const ir::Expr &y, const ir::IndexVar &j, const ir::IndexVar &k,
                                              const ir::Expr &nextRow, const ir::Expr &panelCol, const ir::Expr &ir,
                                              int64_t nr, SourceLoc loc);

// Tasks that read the shared packed copy S[lead.., panel, depth, lane]:
// while tile ir multiplies micro-panel `panel` at row `row`, it prefetches
// line ir (modulo the lines of a panel row) of the same row of panel + 1,
// the micro-panel the task multiplies next: the first row panels fetch it
// whole, the later ones hit lines already on their way. After the task's
// last live panel that is another task's panel, or past the buffer. The
// first panel of the next k block is not fetched: finding it (a division
// by the live panel count) cost the FMA loop a register and a spill.
std::vector<ir::MStmtPtr> nextPanelPrefetches(const ir::TensorPtr &shared, std::vector<ir::Expr> lead,
                                              const ir::Expr &panel, const ir::Expr &row, const ir::Expr &ir,
                                              int64_t nr, SourceLoc loc);

} // namespace tk
