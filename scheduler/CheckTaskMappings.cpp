#include "scheduler/CheckTaskMappings.h"

#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "scheduler/WorkerLimits.h"
#include "scheduler/WriteAnalysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace tk {
using namespace ir;

namespace {

// Iteration dimensions are named `@N` inside the analysis: no .tk
// identifier can spell that, so they never collide with symbols.
struct Walker : MappingVisitor {
  Walker(const Kernel &k, DiagEngine &diags) : k(k), diags(diags), writes(k, k.synthesized) {}

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
  std::vector<Context> contexts{Context{}}; // innermost last
  const MStmt *phased = nullptr;            // the body block a sync-ordered mapping splits into phases

  // Walks `body` of loop `s` in context `c`.
  void walkIn(const MStmt &s, Context c) {
    contexts.push_back(std::move(c));
    walkBody(s);
    contexts.pop_back();
  }

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
      if (v < 1) diags.error(loc, "task-mapping extent must be at least 1, not {}", v);
      return;
    }
    writes.checkExtent(c.iters, c.guards, e, printExpr(written), loc, findings);
  }

  void visitMapFor(const MStmt &s) override {
    Context c = contexts.back();
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
        value[d] = add(mul(value[d], e), Presburger::dimExpr(id));
      }
    }
    for (size_t d = 0; d < s.vars.size(); ++d) value[d] = simplify(value[d]);
    for (size_t i = first; i < c.iters.size(); ++i) c.iters[i].userValue = value[dimOf[i - first]];
    for (size_t d = 0; d < s.vars.size(); ++d) bind(c, s.vars[d], value[d]);
    if (!s.worker) return walkIn(s, std::move(c));
    // The statements between the body's top-level `sync`s form one phase.
    const std::vector<MStmtPtr> *stmts = s.body && s.body->kind == MStmt::Kind::Block ? &s.body->stmts : nullptr;
    bool synced = WriteAnalysis::syncOrders(*s.worker) && stmts &&
                  std::any_of(stmts->begin(), stmts->end(), [](const MStmtPtr &x) { return x->kind == MStmt::Kind::Sync; });
    c.phases.push_back({&s, 0, synced});
    if (synced) phased = s.body.get();
    walkIn(s, std::move(c));
  }

  void visitBlock(const MStmt &s) override {
    if (&s != phased) return MappingVisitor::visitBlock(s);
    phased = nullptr;
    for (const MStmtPtr &child : s.stmts) {
      if (child->kind == MStmt::Kind::Sync) ++contexts.back().phases.back().index;
      else walkStmt(child);
    }
  }

  void visitSeqFor(const MStmt &s) override {
    Context c = contexts.back();
    reads(s.begin, s.loc, c);
    reads(s.end, s.loc, c);
    Expr begin = over(c, s.begin), end = over(c, s.end);
    size_t id = c.iters.size();
    Expr value = simplify(add(begin, Presburger::dimExpr(id)));
    c.iters.push_back({simplify(sub(end, begin)), printExpr(s.end) + " - " + printExpr(s.begin), false, &s, s.var,
                       value,
                       "for " + s.var + " in " + printExpr(s.begin) + ".." + printExpr(s.end) + ", at " +
                           lineCol(s.loc)});
    bind(c, s.var, value);
    walkIn(s, std::move(c));
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

  void visitStore(const MStmt &s) override {
    const Context &c = contexts.back();
    for (const Expr &idx : s.indices) reads(idx, s.loc, c);
    reads(s.value, s.loc, c);
    if (!shared(*s.tensor)) return;
    StoreAccess a = access(*s.tensor, s.loc, s.indices, false, c);
    a.accum = s.accum;
    writes.add(std::move(a));
  }

  void visitIf(const MStmt &s) override {
    const Context &c = contexts.back();
    reads(s.cond, s.loc, c);
    Context inner = c;
    Expr cond = over(c, s.cond);
    inner.guards.push_back({cond, printExpr(s.cond), &s, false, c.iters.size()});
    contexts.push_back(inner);
    walkNested(s.thenS);
    contexts.back().guards.back() = {unary(UnOp::Not, cond), "!(" + printExpr(s.cond) + ")", &s, true,
                                     inner.iters.size()};
    walkNested(s.elseS);
    contexts.pop_back();
  }

  void visitAlloc(const MStmt &s) override {
    allocDepth[s.tensor.get()] = contexts.back().iters.size();
    MappingVisitor::visitAlloc(s);
  }

  void visitPrefetch(const MStmt &) override {} // writes nothing

  // Intrinsic operands are shared/register tensors, except atomic_add's
  // target: atomics never conflict, and they add to a value that a store
  // must have initialised (so they count for no coverage either). Its
  // value is read.
  void visitIntrinsic(const MStmt &s) override {
    if (s.intrinsic == GpuIntrinsic::AtomicAdd && s.operands.size() > 1) reads(s.operands[1], s.loc, contexts.back());
  }

  void visitSync(const MStmt &) override { // below the top level of a mapping that it orders
    const Context &c = contexts.back();
    for (auto f = c.phases.rbegin(); f != c.phases.rend(); ++f)
      if (WriteAnalysis::syncOrders(*f->mapping->worker)) {
        writes.nestedSync(f->mapping);
        break;
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
  Walker w(k, diags);
  w.walkStmt(k.body);
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
