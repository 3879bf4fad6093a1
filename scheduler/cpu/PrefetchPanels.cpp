#include "scheduler/cpu/PrefetchPanels.h"

#include "ir/Simplify.h"

#include <algorithm>

namespace tk {
using namespace ir;

namespace {

// Elements per cache line, and cache lines per panel row of `nr` of them.
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
