#include "scheduler/cpu/FuseRows.h"

#include "ir/IRRewrite.h"
#include "ir/IRVisitor.h"
#include "ir/Reduction.h"
#include "scheduler/Refusal.h"

#include <algorithm>
#include <set>

namespace tk {
using namespace ir;

namespace {

// for (i) in spatial(E) on cores { ... }
bool rowLoop(const MStmtPtr &s) {
  return s && s->kind == MStmt::Kind::MapFor && s->worker == WorkerKind::Cores && s->vars.size() == 1 &&
         s->mapping.atoms.size() == 1 && s->mapping.atoms[0].kind == MappingAtom::Kind::Spatial &&
         s->mapping.atoms[0].perm.empty();
}

bool isVar(const Expr &e, const std::string &name) { return e && e->kind == ExprKind::Var && e->name == name; }

std::set<const TensorDecl *> writtenIn(const std::vector<MStmtPtr> &stmts) {
  std::set<const TensorDecl *> out;
  for (const MStmtPtr &s : stmts)
    visitMStmt(s, [&](const MStmt &m) {
      if (m.kind == MStmt::Kind::Store) out.insert(m.tensor.get());
    });
  return out;
}

// Calls `fn` on every expression node of a statement tree (bounds, dims,
// indices, values, conditions, operands), pre-order.
void visitExprs(const MStmtPtr &s, const std::function<void(const Expr &)> &fn) {
  class Exprs : public MappingVisitor {
  public:
    explicit Exprs(const std::function<void(const Expr &)> &fn) : fn_(fn) {}
    void walkExpr(const Expr &e) override {
      if (e) fn_(e);
      MappingVisitor::walkExpr(e);
    }

  private:
    const std::function<void(const Expr &)> &fn_;
  };
  Exprs(fn).walkStmt(s);
}

// The tensors that `stmts` store to or read (allocations aside).
std::set<const TensorDecl *> accessedIn(const std::vector<MStmtPtr> &stmts) {
  std::set<const TensorDecl *> out = writtenIn(stmts);
  for (const MStmtPtr &s : stmts)
    visitExprs(s, [&](const Expr &n) {
      if (n->kind == ExprKind::Load) out.insert(n->tensor.get());
    });
  return out;
}

// The first access to a tensor of `written` in `loop` that is not at the
// loop's own row, as text; empty when there is none.
std::string foreignRowAccess(const MStmtPtr &loop, const std::set<const TensorDecl *> &written) {
  const std::string &row = loop->vars[0];
  std::string found;
  visitMStmt(loop->body, [&](const MStmt &m) {
    if (found.empty() && m.kind == MStmt::Kind::Store && written.count(m.tensor.get()) &&
        (m.indices.empty() || !isVar(m.indices[0], row)))
      found = "the store to " + m.tensor->name;
  });
  visitExprs(loop->body, [&](const Expr &n) {
    if (found.empty() && n->kind == ExprKind::Load && written.count(n->tensor.get()) &&
        (n->args.empty() || !isVar(n->args[0], row)))
      found = "the read " + printExpr(n);
  });
  return found;
}

// T[i, j..] = f as a statement of a fused row body: the store itself, or a
// repeat loop over j.. around it. Returns the store and the j.. names.
// (Any target role: callers check it.)
const MStmt *elementwiseStore(const MStmtPtr &piece, const std::string &row, std::vector<std::string> &cols) {
  const MStmt *s = piece.get();
  cols.clear();
  if (s->kind == MStmt::Kind::MapFor) {
    if (s->worker || s->mapping.atoms.size() != 1 || s->mapping.atoms[0].kind != MappingAtom::Kind::Repeat ||
        !s->mapping.atoms[0].perm.empty() || !s->body)
      return nullptr;
    cols = s->vars;
    s = s->body.get();
  }
  if (s->kind != MStmt::Kind::Store || s->accum != AccumOp::None || s->indices.size() != cols.size() + 1 ||
      !isVar(s->indices[0], row))
    return nullptr;
  for (size_t d = 0; d < cols.size(); ++d)
    if (!isVar(s->indices[d + 1], cols[d])) return nullptr;
  return containsReduce(s->value) ? nullptr : s;
}

size_t loadsOf(const MStmtPtr &s, const TensorDecl *t) {
  size_t n = 0;
  visitExprs(s, [&](const Expr &e) { n += e->kind == ExprKind::Load && e->tensor.get() == t; });
  return n;
}

// The fused row body being rewritten, and the tensors that the kernel's
// statements outside it access (they still need what is stored in memory).
struct RowRun {
  const Op *op; // what is an intermediate (may stop being stored) and an output
  std::vector<MStmtPtr> pieces;
  std::string row;
  std::set<const TensorDecl *> outside;
};

// Whether intermediate t, stored by piece p, may stop being stored: every
// access to it in the whole kernel is that store or a read in a later
// piece of this run, which then sees f's value (fuseRowsApplies has put
// those reads at their own row). A reader elsewhere (another statement of
// the kernel, at any row; an earlier piece) or another store would find
// the buffer never written, or not allocated at all (issue 19).
bool readersAccountedFor(const RowRun &r, size_t p, const TensorDecl *t) {
  if (r.outside.count(t) || loadsOf(r.pieces[p], t)) return false;
  for (size_t c = 0; c < r.pieces.size(); ++c) {
    if (c == p) continue;
    if (writtenIn({r.pieces[c]}).count(t) || (c < p && loadsOf(r.pieces[c], t))) return false;
  }
  return true;
}

bool expensive(const Expr &e) {
  bool found = false;
  visitExpr(e, [&](const Expr &n) {
    found |= n->kind == ExprKind::Call || (n->kind == ExprKind::Binary && n->binOp == BinOp::Pow);
  });
  return found;
}

bool sameIndices(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  if (a.size() != b.size()) return false;
  for (size_t d = 0; d < a.size(); ++d)
    if (!sameExpr(a[d], b[d])) return false;
  return true;
}

// Stores an expensive element-wise intermediate (softmax's exp) in the op
// output that its last reader writes element for element (Y[i, j] =
// e[i, j] * inv[i]): computed once, reread from cache, updated in place —
// instead of recomputed at each read. False when none qualifies.
bool foldOne(RowRun &r, std::set<const TensorDecl *> &dropped) {
  std::vector<MStmtPtr> &pieces = r.pieces;
  const std::string &row = r.row;
  for (size_t p = 0; p < pieces.size(); ++p) {
    std::vector<std::string> cols, outCols;
    const MStmt *st = elementwiseStore(pieces[p], row, cols);
    if (!st || !isIntermediateOf(*r.op, st->tensor.get()) || !expensive(st->value)) continue;
    const TensorPtr t = st->tensor;
    if (!readersAccountedFor(r, p, t.get())) continue;
    size_t last = p;
    for (size_t c = p + 1; c < pieces.size(); ++c)
      if (loadsOf(pieces[c], t.get())) last = c;
    if (last == p) continue;
    const MStmt *out = elementwiseStore(pieces[last], row, outCols);
    if (!out || !isOutputOf(*r.op, out->tensor.get()) || out->tensor->dtype != t->dtype ||
        out->tensor->rank() != t->rank())
      continue;
    const TensorPtr o = out->tensor;
    bool ok = true;
    for (size_t d = 0; d < o->rank(); ++d) ok &= sameExpr(o->shape[d], t->shape[d]);
    // The last reader reads t only at the element it writes, and o nowhere;
    // nothing else touches o in between; t is written only here.
    visitExprs(pieces[last], [&](const Expr &n) {
      if (n->kind != ExprKind::Load) return;
      if (n->tensor == o) ok = false;
      if (n->tensor == t) ok &= !n->pad && !n->pred && sameIndices(n->args, out->indices);
    });
    for (size_t c = p + 1; c < pieces.size(); ++c) {
      std::set<const TensorDecl *> written = writtenIn({pieces[c]});
      if (c < last && (loadsOf(pieces[c], o.get()) || written.count(o.get()))) ok = false;
      visitExprs(pieces[c], [&](const Expr &n) { ok &= n->kind != ExprKind::Load || n->tensor != t || (!n->pad && !n->pred); });
    }
    if (!ok) continue;
    auto retarget = [&](const TensorPtr &x) { return x == t ? o : x; };
    auto reread = [&](const Expr &e) {
      return transformExpr(e, [&](const Expr &n) -> Expr {
        return n->kind == ExprKind::Load && n->tensor == t ? load(o, n->args, nullptr, nullptr, n->loc) : n;
      });
    };
    pieces[p] = rewriteMStmt(pieces[p], [](const Expr &e) { return e; }, retarget);
    for (size_t c = p + 1; c <= last; ++c) pieces[c] = rewriteMStmt(pieces[c], reread);
    dropped.insert(t.get());
    return true;
  }
  return false;
}

// Recomputes one element-wise intermediate of the fused body where it is
// read; false when none qualifies.
bool inlineOne(RowRun &r, std::set<const TensorDecl *> &dropped) {
  std::vector<MStmtPtr> &pieces = r.pieces;
  for (size_t p = 0; p < pieces.size(); ++p) {
    std::vector<std::string> cols;
    const MStmt *st = elementwiseStore(pieces[p], r.row, cols);
    if (!st || !isIntermediateOf(*r.op, st->tensor.get())) continue;
    const TensorDecl *t = st->tensor.get();
    if (!readersAccountedFor(r, p, t)) continue;
    std::vector<MStmtPtr> after(pieces.begin() + long(p) + 1, pieces.end());
    // What f reads is not written later in the row.
    std::set<const TensorDecl *> writtenAfter = writtenIn(after);
    bool stable = true;
    visitExpr(st->value, [&](const Expr &n) { stable &= n->kind != ExprKind::Load || !writtenAfter.count(n->tensor.get()); });
    bool plainReads = true;
    for (const MStmtPtr &a : after)
      visitExprs(a, [&](const Expr &n) { plainReads &= n->kind != ExprKind::Load || n->tensor.get() != t || (!n->pad && !n->pred); });
    if (!stable || !plainReads) continue;
    Expr f = st->value;
    for (MStmtPtr &a : after)
      a = rewriteMStmt(a, [&](const Expr &e) {
        return transformExpr(e, [&](const Expr &n) -> Expr {
          if (n->kind != ExprKind::Load || n->tensor.get() != t) return n;
          std::vector<std::pair<std::string, Expr>> at;
          for (size_t d = 0; d < cols.size(); ++d) at.push_back({cols[d], n->args[d + 1]});
          return substitute(f, at);
        });
      });
    pieces.erase(pieces.begin() + long(p));
    std::copy(after.begin(), after.end(), pieces.begin() + long(p));
    dropped.insert(t);
    return true;
  }
  return false;
}

} // namespace

bool fuseRowsApplies(const MStmt &body, size_t first, size_t last, std::string *reason) {
  if (body.kind != MStmt::Kind::Block || first >= last || last >= body.stmts.size())
    return refuse(reason, "there are not two statements to fuse");
  std::vector<MStmtPtr> run(body.stmts.begin() + long(first), body.stmts.begin() + long(last) + 1);
  for (const MStmtPtr &s : run) {
    if (!rowLoop(s)) return refuse(reason, "a statement is not a one-dimensional loop over rows on cores");
    if (!sameExpr(s->mapping.atoms[0].dims[0], run[0]->mapping.atoms[0].dims[0]))
      return refuse(reason, "the loops run over different numbers of rows");
  }
  std::set<const TensorDecl *> written = writtenIn(run);
  for (const MStmtPtr &s : run)
    if (std::string access = foreignRowAccess(s, written); !access.empty())
      return refuse(reason, access + " is not at its own row, so one row would depend on another");
  return true;
}

KernelPtr fuseRows(const KernelPtr &k) {
  if (!k->synthesized || !k->body || k->body->kind != MStmt::Kind::Block) return k;
  const auto &stmts = k->body->stmts;
  std::vector<MStmtPtr> out;
  std::set<const TensorDecl *> dropped;
  bool changed = false;
  for (size_t i = 0; i < stmts.size();) {
    size_t j = i;
    while (j + 1 < stmts.size() && fuseRowsApplies(*k->body, i, j + 1, nullptr)) ++j;
    if (j == i) {
      out.push_back(stmts[i++]);
      continue;
    }
    RowRun r;
    r.op = k->op.get();
    r.row = stmts[i]->vars[0];
    for (size_t s = i; s <= j; ++s) {
      Expr v = var(r.row, VarKind::Loop, ScalarType::I64, stmts[s]->loc);
      const std::string &own = stmts[s]->vars[0];
      r.pieces.push_back(rewriteMStmt(stmts[s]->body, [&](const Expr &e) { return substitute(e, {{own, v}}); }));
    }
    std::vector<MStmtPtr> others(stmts.begin(), stmts.begin() + long(i));
    others.insert(others.end(), stmts.begin() + long(j) + 1, stmts.end());
    r.outside = accessedIn(others);
    while (foldOne(r, dropped) || inlineOne(r, dropped)) {
    }
    auto fused = std::make_shared<MStmt>(*stmts[i]);
    fused->body = mBlock(r.pieces, stmts[i]->loc);
    out.push_back(fused);
    changed = true;
    i = j + 1;
  }
  if (!changed) return k;
  // Intermediates that are no longer stored are no longer allocated.
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const MStmtPtr &s) { return s->kind == MStmt::Kind::Alloc && dropped.count(s->tensor.get()); }),
            out.end());
  auto fused = std::make_shared<Kernel>(*k);
  fused->body = mBlock(out, k->body->loc);
  return fused;
}

} // namespace tk
