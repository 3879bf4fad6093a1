#include "scheduler/CheckTaskMappings.h"

#include "ir/Simplify.h"
#include "scheduler/WorkerLimits.h"
#include "scheduler/WriteAnalysis.h"

#include <algorithm>
#include <map>

namespace tk {
using namespace ir;

namespace {

// Iteration dimensions are named `@N` inside the analysis: no .tk
// identifier can spell that, so they never collide with symbols.
struct Walker {
  const Kernel &k;
  DiagEngine &diags;
  LaunchConfig launch;
  WriteAnalysis writes;
  std::vector<WriteFinding> findings;

  struct Context {
    std::vector<IterDim> iters;
    std::vector<std::pair<std::string, Expr>> subst; // innermost binding first; values over `@N` and symbols
    std::vector<const MStmt *> workers;
    std::vector<Guard> guards;
    std::vector<Phase> phases; // of the enclosing worker mappings
  };
  // The iteration dimensions around each local's allocation.
  std::map<const TensorDecl *, size_t> allocDepth;

  static Expr iterVar(size_t i) { return var("@" + std::to_string(i), VarKind::Loop); }

  static Expr over(const Context &c, const Expr &e) { return simplify(substitute(e, c.subst)); }

  static void bind(Context &c, const std::string &name, Expr value) {
    c.subst.insert(c.subst.begin(), {name, std::move(value)});
  }

  // Constant extents must be at least 1; a symbolic one must not be
  // negative for any call the context allows (negative extents make the
  // lowered loops run nothing, and two of them a wrong worker count). Not
  // for the scheduler's own kernels: an op's reduction over `r < k` is
  // empty for k < 0, and its schedule's repeat(k) says just that.
  void extent(const MappingAtom &a, const Expr &e, const Expr &written, const Context &c) {
    if (k.synthesized) return;
    SourceLoc loc = written->loc.line > 0 ? written->loc : a.loc;
    int64_t v;
    if (isConstInt(e, &v)) {
      if (v < 1) diags.error(loc, "task-mapping extent must be at least 1, not " + std::to_string(v));
      return;
    }
    writes.checkExtent(c.iters, c.guards, e, printExpr(written), loc, findings);
  }

  void mapFor(const MStmt &s, Context c) {
    if (s.worker) {
      std::string reason;
      if (!workerMappingApplies(s, c.workers, k.target, launch, &reason)) diags.error(s.loc, reason);
      c.workers.push_back(&s);
    }
    std::string site = printMapping(s.mapping) +
                       (s.worker ? " on " + std::string(workerKindName(*s.worker)) : std::string()) + ", at " +
                       lineCol(s.loc);
    // v_d = sum over factors a of t_{a,d} * prod_{b > a} dims_b[d]
    std::vector<Expr> value(s.vars.size(), intImm(0));
    size_t first = c.iters.size();
    std::vector<size_t> dimOf;
    Context outer = c;
    for (const MappingAtom &a : s.mapping.atoms) {
      bool parallel = s.worker && a.kind == MappingAtom::Kind::Spatial;
      for (size_t d = 0; d < s.vars.size() && d < a.dims.size(); ++d) {
        Expr e = over(outer, a.dims[d]);
        extent(a, e, a.dims[d], outer);
        size_t id = c.iters.size();
        c.iters.push_back({e, printExpr(a.dims[d]), parallel, &s, s.vars[d], nullptr, site});
        dimOf.push_back(d);
        value[d] = add(mul(value[d], e), iterVar(id));
      }
    }
    for (size_t d = 0; d < s.vars.size(); ++d) value[d] = simplify(value[d]);
    for (size_t i = first; i < c.iters.size(); ++i) c.iters[i].userValue = value[dimOf[i - first]];
    for (size_t d = 0; d < s.vars.size(); ++d) bind(c, s.vars[d], value[d]);
    if (!s.worker) return walk(s.body, c);
    // The statements between the body's top-level `sync`s form one phase.
    const std::vector<MStmtPtr> *stmts = s.body && s.body->kind == MStmt::Kind::Block ? &s.body->stmts : nullptr;
    bool synced = WriteAnalysis::syncOrders(*s.worker) && stmts &&
                  std::any_of(stmts->begin(), stmts->end(), [](const MStmtPtr &x) { return x->kind == MStmt::Kind::Sync; });
    c.phases.push_back({&s, 0, synced});
    if (!synced) return walk(s.body, c);
    for (const MStmtPtr &child : *stmts) {
      if (child->kind == MStmt::Kind::Sync) ++c.phases.back().index;
      else walk(child, c);
    }
  }

  void seqFor(const MStmt &s, Context c) {
    reads(s.begin, s.loc, c);
    reads(s.end, s.loc, c);
    Expr begin = over(c, s.begin), end = over(c, s.end);
    size_t id = c.iters.size();
    Expr value = simplify(add(begin, iterVar(id)));
    c.iters.push_back({simplify(sub(end, begin)), printExpr(s.end) + " - " + printExpr(s.begin), false, &s, s.var,
                       value,
                       "for " + s.var + " in " + printExpr(s.begin) + ".." + printExpr(s.end) + ", at " +
                           lineCol(s.loc)});
    bind(c, s.var, value);
    walk(s.body, c);
  }

  // Tensors that workers share: outputs, and `global` locals (per worker
  // when allocated inside the mapping: see StoreAccess::allocDepth).
  // Only outputs in the scheduler's own kernels, whose stores are checked
  // for conflicts and coverage alone.
  bool shared(const TensorDecl &t) const {
    return t.role == TensorRole::Output || (!k.synthesized && t.role == TensorRole::Local && t.scope == Scope::Global);
  }

  StoreAccess access(const TensorDecl &t, SourceLoc loc, const std::vector<Expr> &idx, bool read, const Context &c) {
    auto depth = allocDepth.find(&t);
    StoreAccess a{&t, loc, idx, AccumOp::None, read, c.iters, {}, c.guards, c.phases,
                  depth == allocDepth.end() ? 0 : depth->second};
    for (const Expr &i : idx) a.index.push_back(over(c, i));
    return a;
  }

  // The loads in `e` of shared tensors (for read-write races; user kernels).
  void reads(const Expr &e, SourceLoc at, const Context &c) {
    if (k.synthesized) return;
    visitExpr(e, [&](const Expr &n) {
      if (n->kind != ExprKind::Load || !shared(*n->tensor)) return;
      StoreAccess a = access(*n->tensor, n->loc.line > 0 ? n->loc : at, n->args, true, c);
      if (n->pred) a.guards.push_back({over(c, n->pred), printExpr(n->pred), nullptr, false, c.iters.size()});
      writes.add(std::move(a));
    });
  }

  void store(const MStmt &s, const Context &c) {
    for (const Expr &idx : s.indices) reads(idx, s.loc, c);
    reads(s.value, s.loc, c);
    if (!shared(*s.tensor)) return;
    StoreAccess a = access(*s.tensor, s.loc, s.indices, false, c);
    a.accum = s.accum;
    writes.add(std::move(a));
  }

  void walk(const MStmtPtr &s, const Context &c) {
    if (!s) return;
    switch (s->kind) {
    case MStmt::Kind::Block:
      for (const MStmtPtr &child : s->stmts) walk(child, c);
      return;
    case MStmt::Kind::MapFor: return mapFor(*s, c);
    case MStmt::Kind::SeqFor: return seqFor(*s, c);
    case MStmt::Kind::Store: return store(*s, c);
    case MStmt::Kind::If: {
      reads(s->cond, s->loc, c);
      Context inner = c;
      Expr cond = over(c, s->cond);
      inner.guards.push_back({cond, printExpr(s->cond), s.get(), false, c.iters.size()});
      walk(s->thenS, inner);
      inner.guards.back() = {unary(UnOp::Not, cond), "!(" + printExpr(s->cond) + ")", s.get(), true, c.iters.size()};
      walk(s->elseS, inner);
      return;
    }
    case MStmt::Kind::Alloc: allocDepth[s->tensor.get()] = c.iters.size(); return;
    case MStmt::Kind::Prefetch: return; // writes nothing
    // Intrinsic operands are shared/register tensors, except atomic_add's
    // target: atomics never conflict, and they add to a value that a store
    // must have initialised (so they count for no coverage either). Its
    // value is read.
    case MStmt::Kind::Intrinsic:
      if (s->intrinsic == GpuIntrinsic::AtomicAdd && s->operands.size() > 1) reads(s->operands[1], s->loc, c);
      return;
    case MStmt::Kind::Sync: // below the top level of a mapping that it orders
      for (auto f = c.phases.rbegin(); f != c.phases.rend(); ++f)
        if (WriteAnalysis::syncOrders(*f->mapping->worker)) {
          writes.nestedSync(f->mapping);
          break;
        }
      return;
    }
  }

  // Reports the findings so far; false when one was an error.
  bool flush() {
    bool ok = true;
    for (WriteFinding &f : findings) {
      ok &= f.severity != Severity::Error;
      if (f.severity == Severity::Error) diags.error(f.loc, std::move(f.message));
      else diags.warning(f.loc, std::move(f.message));
    }
    findings.clear();
    return ok;
  }
};

} // namespace

bool checkTaskMappings(const Kernel &k, DiagEngine &diags) {
  size_t before = diags.errorCount();
  Walker w{k, diags, {}, WriteAnalysis(k, k.synthesized), {}, {}};
  w.walk(k.body, {});
  std::string reason;
  if (!launchConfigConsistent(w.launch, &reason)) diags.error(w.launch.threadsLoc, reason);
  if (!w.flush() || diags.errorCount() != before) return false;
  w.writes.checkConflicts(w.findings);
  if (!w.flush()) return false;
  w.writes.checkRaces(w.findings);
  if (!w.flush()) return false;
  w.writes.checkCoverage(w.findings);
  return w.flush();
}

} // namespace tk
