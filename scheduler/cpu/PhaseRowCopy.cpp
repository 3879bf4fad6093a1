#include "scheduler/cpu/PhaseRowCopy.h"

#include "ir/Simplify.h"

namespace tk {
using namespace ir;

Expr withinTensor(const TensorDecl &t, const std::vector<Expr> &idx) {
  Expr ok = boolImm(true);
  for (size_t d = 0; d < idx.size(); ++d)
    ok = binary(BinOp::And, ok,
                binary(BinOp::And, binary(BinOp::LE, intImm(0), idx[d]), binary(BinOp::LT, idx[d], t.shape[d])));
  return simplify(ok);
}

namespace {

// The pieces both statements build: P's stores and loops, and the window
// loops (over d..) around a per-row statement.
struct PhaseRowBuilder {
  const PhaseRows &g;
  SourceLoc loc;
  Expr q, j, left;
  std::vector<Expr> lead, row;

  PhaseRowBuilder(const PhaseRows &rows, SourceLoc l) : g(rows), loc(l) {
    j = var(g.j, VarKind::Loop), q = var(g.q, VarKind::Loop);
    left = g.pad ? g.left : intImm(0);
    std::vector<std::pair<std::string, Expr>> at;
    for (size_t i = 0; i < g.dims.size(); ++i) {
      Expr d = var(g.d[i], VarKind::Loop);
      at.push_back({g.dims[i]->var, simplify(add(d, g.dims[i]->min))});
      lead.push_back(d);
    }
    for (const Expr &i : g.row) row.push_back(simplify(substitute(i, at)));
  }

  // P[phase, d.., col] = value (null: T[row, elem]).
  LStmtPtr store(Expr phase, Expr col, Expr elem, Expr value = nullptr) const {
    LStmtPtr s = lStmt(LStmt::Kind::Store, loc);
    s->tensor = g.buf;
    s->indices = {std::move(phase)};
    s->indices.insert(s->indices.end(), lead.begin(), lead.end());
    s->indices.push_back(simplify(col));
    std::vector<Expr> idx = row;
    idx.push_back(simplify(elem));
    s->value = value ? value : load(g.src, idx);
    return s;
  }

  LStmtPtr loop(const std::string &v, const Expr &min, const Expr &extent, LStmtPtr body) const {
    return lFor(v, simplify(min), simplify(extent), std::move(body), loc);
  }

  // Every phase of columns [from, to) set to the pad value; null when empty.
  LStmtPtr fill(Expr from, Expr to) const {
    Expr n = simplify(sub(to, from));
    if (provablyEquals(n, 0)) return nullptr;
    return loop(g.q, intImm(0), intImm(g.k), loop(g.j, from, n, store(q, j, intImm(0), g.pad)));
  }

  // The columns the row lands in end here: [left, rowEnd).
  Expr rowEnd() const { return add(left, ceilDiv(g.src->shape.back(), intImm(g.k))); }

  LStmtPtr overWindows(LStmtPtr block) const {
    for (size_t i = g.dims.size(); i > 0; --i) block = loop(g.d[i - 1], intImm(0), g.dims[i - 1]->extent, block);
    return block;
  }
};

} // namespace

LStmtPtr phaseRowPadFill(const PhaseRows &g, SourceLoc loc) {
  if (!g.pad) return nullptr;
  PhaseRowBuilder b(g, loc);
  std::vector<LStmtPtr> fills;
  for (LStmtPtr part : {b.fill(intImm(0), b.left), b.fill(b.rowEnd(), g.cols)})
    if (part) fills.push_back(part);
  if (fills.empty()) return nullptr;
  return b.overWindows(fills.size() == 1 ? fills[0] : lBlock(std::move(fills), loc));
}

LStmtPtr phaseRowCopy(const PhaseRows &g, SourceLoc loc) {
  PhaseRowBuilder b(g, loc);
  const Expr &w = g.src->shape.back();
  Expr whole = simplify(floorDiv(w, intImm(g.k)));
  const Expr &j = b.j, &q = b.q, &left = b.left;
  std::vector<LStmtPtr> phases;
  for (int64_t p = 0; p < g.k; ++p)
    phases.push_back(b.store(intImm(p), add(left, j), add(mul(j, intImm(g.k)), intImm(p))));
  std::vector<LStmtPtr> body = {b.loop(g.j, intImm(0), whole, lBlock(std::move(phases), loc))};
  Expr tail = simplify(floorMod(w, intImm(g.k)));
  if (!provablyEquals(tail, 0)) {
    body.push_back(b.loop(g.q, intImm(0), tail, b.store(q, add(left, whole), add(mul(whole, intImm(g.k)), q))));
    if (g.pad)
      body.push_back(b.loop(g.q, tail, floorMod(sub(intImm(g.k), tail), intImm(g.k)),
                            b.store(q, add(left, whole), intImm(0), g.pad)));
  }
  LStmtPtr block = lBlock(std::move(body), loc);
  Expr ok = withinTensor(*g.src, b.row);
  if (!provablyEquals(ok, 1)) block = lIf(ok, block, g.pad ? b.fill(left, b.rowEnd()) : nullptr, loc);
  return b.overWindows(block);
}

} // namespace tk
