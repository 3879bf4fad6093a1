#include "scheduler/sunway/FuseRowsInLdm.h"

#include "ir/Diagnostics.h"
#include "ir/IRRewrite.h"
#include "ir/Reduction.h"
#include "ir/Simplify.h"
#include "scheduler/DefaultSchedule.h"
#include "scheduler/FreshNames.h"
#include "scheduler/sunway/TileOutputs.h"

#include <map>
#include <set>

namespace tk {
using namespace ir;

namespace {

Expr loopVar(const std::string &name) { return var(name, VarKind::Loop, ScalarType::I64); }

} // namespace

std::optional<RowGroup> rowGroup(const Op &op, std::string *reason) {
  auto no = [&](const std::string &why) -> std::optional<RowGroup> {
    if (reason) *reason = why;
    return std::nullopt;
  };
  if (op.body.size() < 2) return no("a single statement: there is no row to share");
  RowGroup g;
  std::map<const TensorDecl *, size_t> writer;
  bool reduces = false;
  for (size_t k = 0; k < op.body.size(); ++k) {
    const Assign &a = op.body[k];
    Expr red = containsReduce(a.value) ? soleReduction(a.value, a.target->dtype) : nullptr;
    if (containsReduce(a.value) && !red)
      return no("a statement holds a reduction that is not its whole value (or an element-wise function of one)");
    if (red && red->rvars.size() != 1) return no("a statement reduces over several variables");
    if (!red && a.vars.empty()) return no("a statement writes a scalar");
    size_t rank = red ? a.vars.size() : a.vars.size() - 1;
    Expr columns = simplify(red ? red->rvars[0].extent : a.vars.back().extent);
    if (k == 0) {
      g.rank = rank;
      g.columns = columns;
      for (size_t d = 0; d < rank; ++d) g.rows.push_back(simplify(a.vars[d].extent));
    } else if (rank != g.rank) {
      return no("the statements do not share their leading (row) dimensions");
    } else if (!sameExpr(columns, g.columns)) {
      return no("the statements' rows have different lengths");
    }
    if (rank == 0) return no("the rows are the whole tensor: one row leaves 63 CPEs idle");
    for (size_t d = 0; d < rank; ++d)
      if (!sameExpr(simplify(a.vars[d].extent), g.rows[d]))
        return no("the statements do not share their leading (row) dimensions");
    if (!writer.emplace(a.target.get(), k).second) return no("two statements write one tensor");
    reduces |= red != nullptr;
    g.stmts.push_back({&a, red, red ? red->rvars[0].name : a.vars.back().name});
  }
  if (!reduces) return no("no statement reduces a row");
  for (const TensorPtr &t : op.intermediates) {
    auto w = writer.find(t.get());
    if (w == writer.end() || g.stmts[w->second].red == nullptr)
      return no("intermediate '" + t->name + "' holds whole rows, not one value per row");
  }
  // A statement reads what another writes only at its own row (and, for
  // a row of values, its own column), after that statement ran.
  for (size_t k = 0; k < g.stmts.size(); ++k) {
    const RowStmt &s = g.stmts[k];
    std::string bad;
    visitExpr(s.a->value, [&](const Expr &e) {
      if (e->kind != ExprKind::Load || !bad.empty()) return;
      auto w = writer.find(e->tensor.get());
      if (w == writer.end()) return;
      if (w->second >= k) {
        bad = "a statement reads '" + e->tensor->name + "' before (or while) it is written";
        return;
      }
      size_t want = g.stmts[w->second].red ? g.rank : g.rank + 1;
      bool same = e->args.size() == want;
      for (size_t d = 0; same && d < want; ++d) {
        const std::string &name = d < g.rank ? s.a->vars[d].name : s.column;
        same = e->args[d]->kind == ExprKind::Var && e->args[d]->name == name;
      }
      if (!same) bad = "a statement reads '" + e->tensor->name + "' at another row or column than its own";
    });
    if (!bad.empty()) return no(bad);
  }
  return g;
}

int64_t rowCapacity(const RowGroup &g, int64_t budgetBytes, bool streamed) {
  // Bytes per column of every row buffer: the tensors indexed by a
  // column variable, read ones twice (once streamed; written ones then
  // take a block).
  std::map<const TensorDecl *, bool> perColumn; // tensor -> written
  for (const RowStmt &s : g.stmts) {
    if (!s.red) perColumn[s.a->target.get()] = true;
    visitExpr(s.a->value, [&](const Expr &e) {
      if (e->kind != ExprKind::Load) return;
      for (const Expr &i : e->args)
        if (mentionsVar(i, s.column)) perColumn.emplace(e->tensor.get(), false);
    });
  }
  int64_t bytes = 0, fixed = 0;
  for (const auto &[t, written] : perColumn) {
    int64_t b = scalarTypeBytes(t->dtype);
    if (!streamed) bytes += b * (written ? 1 : 2);
    else if (written) fixed += b * kStreamBlock;
    else bytes += b;
    fixed += 64; // LdmBox's alignment per buffer, and the per-row values' LDM
  }
  // Whole blocks, so the last block's reads stay inside the row's box.
  if (streamed) return bytes > 0 && budgetBytes > fixed ? (budgetBytes - fixed) / bytes / kStreamBlock * kStreamBlock : 0;
  int64_t cap = 0;
  for (int64_t c = 1; c <= (int64_t{1} << 20) && c * bytes <= budgetBytes; c *= 2) cap = c;
  return cap;
}

MStmtPtr fuseRows(const Op &op, const RowGroup &g, int64_t cap, bool streamed) {
  if (cap < 1) throw InternalError("FuseRowsInLdm: a row capacity below one column");
  FreshNames fresh(op);
  SourceLoc loc = op.body.front().loc;
  // The row's coordinates: the mixed-radix digits of t.
  std::string t = fresh("row");
  std::vector<Expr> row(g.rank);
  Expr stride = intImm(1), count = intImm(1);
  for (size_t d = g.rank; d-- > 0;) {
    Expr coord = floorDiv(loopVar(t), stride);
    if (d > 0) coord = floorMod(coord, g.rows[d]);
    row[d] = simplify(coord);
    stride = mul(stride, g.rows[d]);
    count = mul(count, g.rows[d]);
  }
  int64_t c;
  Expr columns = isConstInt(g.columns, &c) && c <= cap ? g.columns : binary(BinOp::Min, g.columns, intImm(cap));

  // Per-row values only this row loop reads live in LDM.
  std::vector<MStmtPtr> body;
  std::map<const TensorDecl *, TensorPtr> inLdm;
  for (const TensorPtr &i : op.intermediates) {
    inLdm[i.get()] = scratchTensor(fresh(i->name + "_ldm"), i->dtype, {intImm(1)}, Scope::Ldm, i->loc);
    body.push_back(mAlloc(inLdm[i.get()], i->loc));
  }
  auto toLdm = [&](const Expr &e) {
    return transformExpr(e, [&](const Expr &n) {
      if (n->kind != ExprKind::Load) return n;
      auto it = inLdm.find(n->tensor.get());
      return it == inLdm.end() ? n : load(it->second, {intImm(0)}, n->pad, n->pred);
    });
  };
  for (const RowStmt &s : g.stmts) {
    std::vector<std::pair<std::string, Expr>> map;
    for (size_t d = 0; d < g.rank; ++d) map.push_back({s.a->vars[d].name, row[d]});
    map.push_back({s.column, loopVar(s.column)});
    TensorPtr target = s.a->target;
    std::vector<Expr> idx(row);
    if (auto it = inLdm.find(target.get()); it != inLdm.end()) {
      target = it->second;
      idx = {intImm(0)};
    } else if (!s.red) {
      idx.push_back(loopVar(s.column));
    }
    SourceLoc at = s.a->loc;
    if (!s.red && streamed && !inLdm.count(s.a->target.get())) {
      // for j.blk { for j in 0..B { .. at j.blk * B + j .. } }: a constant
      // B, so the row's box of what it reads keeps a constant bound; the
      // last block's columns past the row are guarded off like any
      // out-of-bounds access (the version runs only where C <= cap).
      std::string blk = fresh(s.column + "_blk");
      Expr start = mul(loopVar(blk), intImm(kStreamBlock));
      std::vector<std::pair<std::string, Expr>> shifted = map;
      shifted.back().second = add(start, loopVar(s.column));
      idx.back() = shifted.back().second;
      MStmtPtr store = mStore(target, idx, toLdm(substitute(s.a->value, shifted)), AccumOp::None, at);
      body.push_back(mSeqFor(blk, simplify(ceilDiv(columns, intImm(kStreamBlock))),
                             tileLoop(s.column, intImm(kStreamBlock), store, at), at));
      continue;
    }
    if (!s.red) {
      body.push_back(tileLoop(s.column, columns, mStore(target, idx, toLdm(substitute(s.a->value, map)), AccumOp::None, at), at));
      continue;
    }
    SourceLoc rloc = s.red->loc.valid() ? s.red->loc : at;
    body.push_back(mStore(target, idx, reductionIdentity(s.red->reduceOp, s.a->target->dtype), AccumOp::None, at));
    Expr term = toLdm(substitute(s.red->args[0], map));
    body.push_back(tileLoop(s.column, columns, mStore(target, idx, term, accumFor(s.red->reduceOp), rloc), rloc));
    if (s.red != s.a->value) {
      // value = f(reduction) (a mean's sum / C): f applied to the row's value.
      Expr reduced = load(target, idx);
      Expr post = transformExpr(toLdm(substitute(s.a->value, map)),
                                [&](const Expr &n) { return n->kind == ExprKind::Reduce ? reduced : n; });
      body.push_back(mStore(target, idx, post, AccumOp::None, at));
    }
  }
  return cpeChunks({t}, simplify(ceilDiv(count, intImm(64))), mBlock(std::move(body), loc), loc);
}

} // namespace tk
