#include "scheduler/cpu/PrefetchPanels.h"

#include "ir/Simplify.h"

#include <algorithm>

namespace tk {
using namespace ir;

namespace {

// Elements per cache line, and cache lines per panel row of `nr` of them
// (64-byte lines: every x86-64 core, and what the .hw descriptions give).
std::pair<int64_t, int64_t> lineShape(ScalarType t, int64_t nr) {
  int64_t lineElems = std::max<int64_t>(1, 64 / scalarTypeBytes(t));
  return {lineElems, std::max<int64_t>(1, nr / lineElems)};
}

} // namespace

std::vector<MStmtPtr> nextBlockPrefetches(const Expr &y, const IndexVar &j, const IndexVar &k, const Expr &nextRow,
                                          const Expr &panelCol, const Expr &ir, int64_t nr, SourceLoc loc) {
  const Expr &last = y->args.back();
  if (last->kind != ExprKind::Var || last->name != j.name) return {};
  auto [lineElems, lines] = lineShape(y->type, nr);
  Expr row = simplify(nextRow);
  std::vector<MStmtPtr> out;
  // Two lines per k step: two consecutive tiles cover a 4-line panel row.
  // 0, 1, 2 and 4 lines measured alike (2 threads, medians of 5 runs
  // alternating: 2048^3 99.9, 103.0, 103.6, 104.9 ms; 1024^3 12.6, 12.7,
  // 12.5, 12.5 ms): the hardware prefetcher covers these rows on the Zen 4
  // measured; the prefetches stay for machines whose prefetcher does not
  // (+3 to +9% at 2048^3 when they came in, ConstructSchedule.cpp).
  for (int64_t i = 0; i < std::min<int64_t>(2, lines); ++i) {
    Expr line = binary(BinOp::Mod, add(mul(ir, intImm(2)), intImm(i)), intImm(lines));
    Expr col = add(panelCol, mul(line, intImm(lineElems)));
    Expr at = substitute(y, {{j.name, simplify(col)}, {k.name, row}});
    out.push_back(mPrefetch(at->tensor, at->args, loc));
  }
  return out;
}

std::vector<MStmtPtr> nextPanelPrefetches(const TensorPtr &shared, std::vector<Expr> lead, const Expr &panel,
                                          const Expr &row, const Expr &ir, int64_t nr, SourceLoc loc) {
  auto [lineElems, lines] = lineShape(shared->dtype, nr);
  lead.insert(lead.end(), {simplify(add(panel, intImm(1))), simplify(row),
                           simplify(mul(binary(BinOp::Mod, ir, intImm(lines)), intImm(lineElems)))});
  return {mPrefetch(shared, lead, loc)};
}

} // namespace tk
