#include "scheduler/Fusion.h"

#include "ir/IRMutator.h"
#include "ir/IRRewrite.h"
#include "ir/Reduction.h"
#include "ir/Simplify.h"
#include "scheduler/EpilogueIndexMap.h"
#include "scheduler/Refusal.h"

#include <fmt/format.h>

#include <algorithm>

namespace tk {
using namespace ir;

namespace {

std::vector<Expr> loadsOf(const Expr &e, const TensorPtr &t) {
  std::vector<Expr> out;
  visitExpr(e, [&](const Expr &n) {
    if (n->kind == ExprKind::Load && n->tensor == t) out.push_back(n);
  });
  return out;
}

bool reads(const Assign &a, const TensorPtr &t) { return !loadsOf(a.value, t).empty(); }

size_t writers(const Op &op, const TensorPtr &t) {
  return std::count_if(op.body.begin(), op.body.end(), [&](const Assign &a) { return a.target == t; });
}

std::string at(const Assign &a) {
  return fmt::format("the statement at line {}:{}", a.loc.line, a.loc.col);
}

// The live statement other than `skip1`/`skip2` that reads `t`, if any.
const Assign *otherReader(const Op &op, const FusionState &s, const TensorPtr &t, size_t skip1, size_t skip2) {
  for (size_t i : s.live)
    if (i != skip1 && i != skip2 && reads(op.body[i], t)) return &op.body[i];
  return nullptr;
}

bool groupReads(const Op &op, const FusionState &s, const TensorPtr &t) {
  if (reads(op.body[s.anchor], t)) return true;
  return std::any_of(s.prologues.begin(), s.prologues.end(), [&](size_t i) { return reads(op.body[i], t); });
}

// The element the producer computes for a load of it: its value with its
// index variables bound to the load's indices, the load's `else` value
// outside the tensor.
Expr inlineLoad(const Assign &p, const Expr &ld) {
  std::vector<std::pair<std::string, Expr>> bind;
  for (size_t d = 0; d < p.vars.size(); ++d) bind.push_back({p.vars[d].name, ld->args[d]});
  Expr v = substitute(p.value, bind);
  if (v->type != p.target->dtype) v = cast(p.target->dtype, v);
  if (!ld->pad) return v;
  Expr inside = boolImm(true);
  for (size_t d = 0; d < ld->args.size(); ++d) {
    Expr lo = binary(BinOp::LE, intImm(0), ld->args[d]);
    Expr hi = binary(BinOp::LT, ld->args[d], p.target->shape[d]);
    inside = binary(BinOp::And, inside, binary(BinOp::And, lo, hi));
  }
  return select(simplify(inside), v, ld->pad, ld->loc);
}

// Copies `s`, replacing every Store with what `fn` returns for it.
MStmtPtr mapStores(const MStmtPtr &s, const std::function<MStmtPtr(const MStmt &)> &fn) {
  class MapStores : public MappingMutator {
  public:
    explicit MapStores(const std::function<MStmtPtr(const MStmt &)> &fn) : fn_(fn) {}
    Expr mutateExpr(const Expr &e) override { return e; }

  protected:
    MStmtPtr mutateStore(const MStmtPtr &s) override { return fn_(*s); }

  private:
    const std::function<MStmtPtr(const MStmt &)> &fn_;
  };
  return MapStores(fn).mutateStmt(s);
}

std::vector<const MStmt *> storesTo(const MStmtPtr &s, const TensorPtr &t) {
  std::vector<const MStmt *> out;
  visitMStmt(s, [&](const MStmt &m) {
    if (m.kind == MStmt::Kind::Store && m.tensor == t) out.push_back(&m);
  });
  return out;
}

// The consumer's store for the anchor element at `idx` whose value is
// `value`: E[inv(idx)] = g(value), with `map` the consumer's read of t.
MStmtPtr epilogueStore(const Assign &c, const TensorPtr &t, const EpilogueIndexMap &map, const std::vector<Expr> &idx,
                       const Expr &value, SourceLoc loc) {
  std::vector<Expr> target = invertIndexMap(map, idx);
  std::vector<std::pair<std::string, Expr>> bind;
  for (size_t v = 0; v < c.vars.size(); ++v) bind.push_back({c.vars[v].name, target[v]});
  Expr v = value->type == t->dtype ? value : cast(t->dtype, value);
  Expr g = transformExpr(substitute(c.value, bind), [&](const Expr &n) {
    return n->kind == ExprKind::Load && n->tensor == t ? v : n;
  });
  return mStore(c.target, std::move(target), g, AccumOp::None, loc);
}

// Applies consumer `c` to the anchor statement `anchor`, which stores `t`;
// null (with a reason) when its schedule writes t in a form the epilogue
// cannot follow.
MStmtPtr applyEpilogue(const MStmtPtr &anchor, const Assign &c, const TensorPtr &t, std::string *reason) {
  EpilogueIndexMap map;
  if (!epilogueIndexMap(c, t, loadsOf(c.value, t).front(), &map, reason)) return nullptr;
  std::vector<const MStmt *> stores = storesTo(anchor, t);
  bool plain = std::all_of(stores.begin(), stores.end(), [&](const MStmt *m) {
    return m->accum == AccumOp::None && loadsOf(m->value, t).empty();
  });
  if (plain) {
    size_t uses = loadsOf(c.value, t).size();
    for (const MStmt *m : stores)
      if (uses > 1 && containsReduce(m->value))
        return refuse(reason, fmt::format("it reads '{}' {} times; applied at the anchor's store it would compute "
                                          "the reduction as often",
                                          t->name, uses)),
               nullptr;
    return mapStores(anchor, [&](const MStmt &m) -> MStmtPtr {
      if (m.tensor != t) return std::make_shared<MStmt>(m);
      return epilogueStore(c, t, map, m.indices, m.value, m.loc);
    });
  }
  // Accumulation in memory: find the block that holds the identity store
  // and, after it, every accumulating store; the epilogue visits the
  // identity store's nest once the accumulation is complete.
  // The first block (outermost, in order) that holds them all gets the
  // epilogue after its last accumulating statement.
  class PlaceEpilogue : public MappingMutator {
  public:
    PlaceEpilogue(const Assign &c, const TensorPtr &t, const EpilogueIndexMap &map, size_t stores)
        : c_(c), t_(t), map_(map), stores_(stores) {}
    Expr mutateExpr(const Expr &e) override { return e; }
    bool placed = false;

  protected:
    MStmtPtr mutateBlock(const MStmtPtr &s) override {
      if (storesTo(s, t_).size() != stores_) return MappingMutator::mutateBlock(s);
      size_t first = s->stmts.size(), last = 0;
      for (size_t i = 0; i < s->stmts.size(); ++i)
        if (!storesTo(s->stmts[i], t_).empty()) first = std::min(first, i), last = i;
      if (first >= last) return MappingMutator::mutateBlock(s);
      std::vector<const MStmt *> init = storesTo(s->stmts[first], t_), all;
      visitMStmt(s->stmts[first], [&](const MStmt &m) { if (m.kind == MStmt::Kind::Store) all.push_back(&m); });
      bool identity = init.size() == 1 && all.size() == 1 && init[0]->accum == AccumOp::None;
      if (identity) visitExpr(init[0]->value, [&](const Expr &e) { identity &= e->kind != ExprKind::Load; });
      size_t accumulating = 0;
      for (size_t i = first + 1; i <= last; ++i)
        for (const MStmt *m : storesTo(s->stmts[i], t_)) accumulating += m->accum != AccumOp::None;
      if (!identity || accumulating + 1 != stores_) return MappingMutator::mutateBlock(s);
      MStmtPtr epi = mapStores(s->stmts[first], [&](const MStmt &m) {
        return epilogueStore(c_, t_, map_, m.indices, load(t_, m.indices), c_.loc);
      });
      auto n = std::make_shared<MStmt>(*s);
      n->stmts.insert(n->stmts.begin() + static_cast<long>(last) + 1, epi);
      placed = true;
      return n;
    }

  private:
    const Assign &c_;
    const TensorPtr &t_;
    const EpilogueIndexMap &map_;
    size_t stores_;
  };
  PlaceEpilogue place(c, t, map, stores.size());
  MStmtPtr out = place.mutateStmt(anchor);
  if (place.placed) return out;
  return refuse(reason, "the anchor's schedule writes '" + t->name +
                            "' neither with one final store per element nor as an identity store followed by "
                            "accumulating stores in one block"),
         nullptr;
}

} // namespace

bool prologueApplies(const Op &op, const FusionState &s, size_t producer, std::string *reason) {
  const Assign &p = op.body[producer];
  const TensorPtr &t = p.target;
  if (!groupReads(op, s, t)) return refuse(reason, "the anchor does not read '" + t->name + "'");
  if (containsReduce(p.value)) return refuse(reason, "it is not injective: it contains a reduction");
  if (!isIntermediateOf(op, t.get()))
    return refuse(reason, "'" + t->name + "' is an output of the op and must still be stored");
  if (writers(op, t) != 1) return refuse(reason, "'" + t->name + "' is assigned by several statements");
  if (const Assign *o = otherReader(op, s, t, producer, s.anchor))
    return refuse(reason, "'" + t->name + "' has another consumer besides the anchor: " + at(*o));
  // Inlined, the producer's value is computed where the anchor runs: what
  // it reads must still hold the values it read at its own place.
  for (size_t i = producer + 1; i <= s.anchor; ++i)
    if (reads(p, op.body[i].target))
      return refuse(reason, "it reads '" + op.body[i].target->name + "', which " + at(op.body[i]) +
                                " assigns before the anchor runs");
  return true;
}

bool epilogueApplies(const Op &op, const FusionState &s, size_t consumer, std::string *reason) {
  const Assign &c = op.body[consumer];
  const TensorPtr &t = s.result;
  if (!reads(c, t)) return refuse(reason, "it does not read '" + t->name + "'");
  if (containsReduce(c.value)) return refuse(reason, "it is not injective: it contains a reduction");
  if (!isIntermediateOf(op, t.get()))
    return refuse(reason, "'" + t->name + "' is an output of the op and must still be stored");
  if (writers(op, t) != 1) return refuse(reason, "'" + t->name + "' is assigned by several statements");
  if (reads(c, c.target)) return refuse(reason, "it reads '" + c.target->name + "', the tensor it writes");
  if (const Assign *o = otherReader(op, s, t, consumer, consumer))
    return refuse(reason, "'" + t->name + "' has another consumer: " + at(*o));
  for (size_t i : s.live)
    if (i > s.anchor && i < consumer)
      return refuse(reason, at(op.body[i]) + " runs between the anchor and this statement");
  // Applied at the anchor's stores, the consumer writes its target while
  // the anchor (with its prologues and the epilogues before) still runs:
  // none of them may read that tensor, at any element.
  std::vector<size_t> group(s.prologues);
  for (size_t i = s.anchor; i < consumer; ++i) group.push_back(i);
  for (size_t i : group)
    if (reads(op.body[i], c.target))
      return refuse(reason, "'" + c.target->name + "' is read by " + at(op.body[i]) +
                                ", which would see the values this statement stores while it runs");
  std::vector<Expr> lds = loadsOf(c.value, t);
  for (const Expr &ld : lds)
    for (size_t d = 0; d < ld->args.size(); ++d)
      if (!sameExpr(ld->args[d], lds.front()->args[d]))
        return refuse(reason, "it reads '" + t->name + "' at several different elements; it is not bijective");
  EpilogueIndexMap map;
  return epilogueIndexMap(c, t, lds.front(), &map, reason);
}

KernelPtr fuseStatements(const KernelPtr &k, DiagEngine &diags, std::vector<FusionRefusal> *deferred) {
  const Op &op = *k->op;
  auto report = [&](const Assign &a, const TensorPtr &other, const std::string &message) {
    if (deferred) deferred->push_back(FusionRefusal{a.loc, a.target.get(), other.get(), message});
    else diags.warning(a.loc, message);
  };
  if (!k->synthesized || op.body.size() < 2) return k;
  FusionState s;
  size_t anchors = 0;
  for (size_t i = 0; i < op.body.size(); ++i)
    if (containsReduce(op.body[i].value)) s.anchor = i, ++anchors;
  if (anchors != 1) return k;
  // The default schedule is the intermediates' allocations, then one
  // statement per op statement in order.
  size_t allocs = op.intermediates.size();
  if (k->body->stmts.size() != allocs + op.body.size())
    throw InternalError("fuseStatements: '" + k->name + "' is not shaped like a default schedule");
  std::vector<MStmtPtr> stmts(k->body->stmts.begin() + static_cast<long>(allocs), k->body->stmts.end());
  std::vector<TensorPtr> removed;
  for (size_t i = 0; i < op.body.size(); ++i) s.live.push_back(i);
  s.result = op.body[s.anchor].target;
  auto drop = [&](size_t i) { s.live.erase(std::find(s.live.begin(), s.live.end(), i)); };

  // Prologues, nearest first, so that a chain P1 -> P2 -> anchor fuses P2
  // and then P1 (which the anchor now reads through P2's value).
  for (size_t p = s.anchor; p-- > 0;) {
    const Assign &a = op.body[p];
    if (!groupReads(op, s, a.target)) continue;
    std::string why;
    if (!prologueApplies(op, s, p, &why)) {
      report(a, op.body[s.anchor].target,
             "cannot fuse '" + a.target->name + "' into '" + op.body[s.anchor].target->name + "' as a prologue: " + why);
      continue;
    }
    stmts[s.anchor] = rewriteMStmt(stmts[s.anchor], [&](const Expr &e) {
      return transformExpr(e, [&](const Expr &n) { return n->kind == ExprKind::Load && n->tensor == a.target ? inlineLoad(a, n) : n; });
    });
    drop(p);
    s.prologues.push_back(p);
    removed.push_back(a.target);
  }

  // Epilogues: the next statement that reads what the anchor now writes.
  for (size_t c = s.anchor + 1; c < op.body.size(); ++c) {
    const Assign &a = op.body[c];
    if (!reads(a, s.result) || containsReduce(a.value)) continue;
    std::string why;
    MStmtPtr fused;
    if (epilogueApplies(op, s, c, &why)) fused = applyEpilogue(stmts[s.anchor], a, s.result, &why);
    if (!fused) {
      report(a, s.result,
             "cannot fuse '" + a.target->name + "' into '" + op.body[s.anchor].target->name + "' as an epilogue: " + why);
      break;
    }
    if (storesTo(fused, s.result).empty()) removed.push_back(s.result);
    stmts[s.anchor] = fused;
    drop(c);
    s.result = a.target;
  }
  if (s.live.size() == op.body.size()) return k;

  auto out = std::make_shared<Kernel>(*k);
  std::vector<MStmtPtr> body;
  for (size_t i = 0; i < allocs; ++i)
    if (std::find(removed.begin(), removed.end(), op.intermediates[i]) == removed.end())
      body.push_back(k->body->stmts[i]);
  for (size_t i : s.live) body.push_back(stmts[i]);
  out->body = mBlock(std::move(body), k->body->loc);
  return out;
}

bool fusedTogether(const ir::Kernel &k, const ir::TensorDecl *a, const ir::TensorDecl *b) {
  bool storesA = false, storesB = false;
  for (const MStmtPtr &top : k.body->stmts) {
    bool hasA = false, hasB = false;
    visitMStmt(top, [&](const MStmt &m) {
      if (m.kind != MStmt::Kind::Store) return;
      hasA |= m.tensor.get() == a;
      hasB |= m.tensor.get() == b;
    });
    if (hasA && hasB) return true;
    storesA |= hasA, storesB |= hasB;
  }
  return !storesA || !storesB;
}

} // namespace tk
