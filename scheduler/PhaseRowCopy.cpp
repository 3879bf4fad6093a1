#include "scheduler/PhaseRowCopy.h"

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

LStmtPtr phaseRowCopy(const PhaseRows &g, SourceLoc loc) {
  const Expr &w = g.src->shape.back();
  Expr whole = simplify(floorDiv(w, intImm(g.k)));
  Expr j = var(g.j, VarKind::Loop), q = var(g.q, VarKind::Loop);
  Expr left = g.pad ? g.left : intImm(0);
  std::vector<std::pair<std::string, Expr>> at;
  std::vector<Expr> lead;
  for (size_t i = 0; i < g.dims.size(); ++i) {
    Expr d = var(g.d[i], VarKind::Loop);
    at.push_back({g.dims[i]->var, simplify(add(d, g.dims[i]->min))});
    lead.push_back(d);
  }
  std::vector<Expr> row;
  for (const Expr &i : g.row) row.push_back(simplify(substitute(i, at)));
  // P[phase, d.., col] = value (null: T[row, elem]).
  auto store = [&](Expr phase, Expr col, Expr elem, Expr value = nullptr) {
    LStmtPtr s = lStmt(LStmt::Kind::Store, loc);
    s->tensor = g.buf;
    s->indices = {std::move(phase)};
    s->indices.insert(s->indices.end(), lead.begin(), lead.end());
    s->indices.push_back(simplify(col));
    std::vector<Expr> idx = row;
    idx.push_back(simplify(elem));
    s->value = value ? value : load(g.src, idx);
    return s;
  };
  auto loop = [&](const std::string &v, const Expr &min, const Expr &extent, LStmtPtr body) {
    return lFor(v, simplify(min), simplify(extent), std::move(body), loc);
  };
  // Every phase of columns [from, to) set to the pad value.
  auto fill = [&](Expr from, Expr to) -> LStmtPtr {
    Expr n = simplify(sub(to, from));
    if (provablyEquals(n, 0)) return nullptr;
    return loop(g.q, intImm(0), intImm(g.k), loop(g.j, from, n, store(q, j, intImm(0), g.pad)));
  };
  std::vector<LStmtPtr> phases;
  for (int64_t p = 0; p < g.k; ++p)
    phases.push_back(store(intImm(p), add(left, j), add(mul(j, intImm(g.k)), intImm(p))));
  std::vector<LStmtPtr> body = {loop(g.j, intImm(0), whole, lBlock(std::move(phases), loc))};
  Expr tail = simplify(floorMod(w, intImm(g.k)));
  if (!provablyEquals(tail, 0)) {
    body.push_back(loop(g.q, intImm(0), tail, store(q, add(left, whole), add(mul(whole, intImm(g.k)), q))));
    if (g.pad)
      body.push_back(loop(g.q, tail, floorMod(sub(intImm(g.k), tail), intImm(g.k)),
                          store(q, add(left, whole), intImm(0), g.pad)));
  }
  LStmtPtr block = lBlock(std::move(body), loc);
  Expr ok = withinTensor(*g.src, row);
  if (!provablyEquals(ok, 1)) {
    block = lIf(ok, block, g.pad ? fill(left, add(left, ceilDiv(w, intImm(g.k)))) : nullptr, loc);
  }
  if (g.pad) {
    std::vector<LStmtPtr> all;
    for (LStmtPtr part : {fill(intImm(0), left), block, fill(add(left, ceilDiv(w, intImm(g.k))), g.cols)})
      if (part) all.push_back(part);
    block = lBlock(std::move(all), loc);
  }
  for (size_t i = g.dims.size(); i > 0; --i) block = loop(g.d[i - 1], intImm(0), g.dims[i - 1]->extent, block);
  return block;
}

} // namespace tk
