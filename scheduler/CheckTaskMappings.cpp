#include "scheduler/CheckTaskMappings.h"

#include "ir/Simplify.h"
#include "scheduler/WorkerLimits.h"
#include "scheduler/WriteAnalysis.h"

namespace tk {
using namespace ir;

namespace {

// Iteration dimensions are named `@N` inside the analysis: no .tk
// identifier can spell that, so they never collide with symbols.
struct Walker {
  const Kernel &k;
  DiagEngine &diags;
  LaunchConfig launch;
  std::vector<StoreAccess> accesses;

  struct Context {
    std::vector<IterDim> iters;
    std::vector<std::pair<std::string, Expr>> subst; // innermost binding first
    std::vector<const MStmt *> workers;
    bool underIf = false;
  };

  static Expr iterVar(size_t i) { return var("@" + std::to_string(i), VarKind::Loop); }

  static void bind(Context &c, const std::string &name, Expr value) {
    c.subst.insert(c.subst.begin(), {name, std::move(value)});
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
    for (const MappingAtom &a : s.mapping.atoms) {
      bool parallel = s.worker && a.kind == MappingAtom::Kind::Spatial;
      for (size_t d = 0; d < s.vars.size() && d < a.dims.size(); ++d) {
        size_t id = c.iters.size();
        c.iters.push_back({simplify(a.dims[d]), parallel, s.vars[d], site});
        value[d] = add(mul(value[d], a.dims[d]), iterVar(id));
      }
    }
    for (size_t d = 0; d < s.vars.size(); ++d) bind(c, s.vars[d], simplify(value[d]));
    walk(s.body, c);
  }

  void store(const MStmt &s, const Context &c) {
    if (s.tensor->role != TensorRole::Output) return;
    StoreAccess a;
    a.store = &s;
    a.iters = c.iters;
    a.analyzable = !c.underIf;
    for (const Expr &idx : s.indices) {
      LinearForm f = linearize(simplify(substitute(idx, c.subst)));
      AffineIndex ix;
      ix.offset = f.constant;
      for (const auto &[atom, coef] : f.terms) {
        bool loopDependent = false;
        visitExpr(atom, [&](const Expr &n) { loopDependent |= n->kind == ExprKind::Var && n->name[0] == '@'; });
        if (!loopDependent) ix.symbolicOffset = true;
        else if (atom->kind == ExprKind::Var) ix.terms.push_back({std::stoul(atom->name.substr(1)), coef});
        else a.analyzable = false;
      }
      a.index.push_back(std::move(ix));
    }
    std::string reason;
    if (!storeIsConflictFree(a, s.accum == AccumOp::None, &reason)) diags.error(s.loc, reason);
    accesses.push_back(std::move(a));
  }

  void walk(const MStmtPtr &s, const Context &c) {
    if (!s) return;
    switch (s->kind) {
    case MStmt::Kind::Block:
      for (const MStmtPtr &child : s->stmts) walk(child, c);
      return;
    case MStmt::Kind::MapFor: return mapFor(*s, c);
    case MStmt::Kind::SeqFor: {
      Context inner = c;
      size_t id = inner.iters.size();
      inner.iters.push_back({simplify(sub(s->end, s->begin)), false, s->var,
                             "for " + s->var + " in " + printExpr(s->begin) + ".." + printExpr(s->end) + ", at " +
                                 lineCol(s->loc)});
      bind(inner, s->var, add(s->begin, iterVar(id)));
      return walk(s->body, inner);
    }
    case MStmt::Kind::Store: return store(*s, c);
    case MStmt::Kind::If: {
      Context inner = c;
      inner.underIf = true;
      walk(s->thenS, inner);
      walk(s->elseS, inner);
      return;
    }
    case MStmt::Kind::Alloc:
    case MStmt::Kind::Sync:
    case MStmt::Kind::Prefetch: // writes nothing
    // Intrinsic operands are shared/register tensors, except atomic_add's
    // target: atomics never conflict, and they add to a value that a store
    // must have initialised (so they count for no coverage either).
    case MStmt::Kind::Intrinsic: return;
    }
  }

  void coverage() {
    for (const TensorPtr &out : k.op->outputs) {
      const StoreAccess *partial = nullptr;
      std::string partialReason;
      bool written = false, covered = false;
      for (const StoreAccess &a : accesses) {
        if (a.store->tensor != out) continue;
        written = true;
        std::string reason;
        Coverage cov = storeCoverage(a, k.requires_, &reason);
        if (cov != Coverage::Partial) covered = true;
        else if (!partial) {
          partial = &a;
          partialReason = reason;
        }
      }
      if (!written) diags.error(k.loc, "kernel " + k.name + " never writes output " + out->name);
      else if (!covered) diags.error(partial->store->loc, partialReason);
    }
  }
};

} // namespace

bool checkTaskMappings(const Kernel &k, DiagEngine &diags) {
  size_t before = diags.errorCount();
  Walker w{k, diags, {}, {}};
  w.walk(k.body, {});
  std::string reason;
  if (!launchConfigConsistent(w.launch, &reason)) diags.error(w.launch.threadsLoc, reason);
  if (diags.errorCount() == before) w.coverage();
  return diags.errorCount() == before;
}

} // namespace tk
